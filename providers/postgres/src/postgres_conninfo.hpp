#pragma once
// The libpq connection string, shared by the blocking (libpqxx) and non-blocking (libpq) connections.

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <string>

namespace shedlock::providers::detail {

/// The libpq connection string for `options` (values quoted; includes the password, so it is
/// never shown anywhere). Sessions get DateStyle ISO and the statement timeout.
std::string postgres_conninfo(const postgres_options& options);

}  // namespace shedlock::providers::detail
