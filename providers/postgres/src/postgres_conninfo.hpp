#pragma once
// The libpq connection string, shared by the blocking (libpqxx) and non-blocking (libpq) connections.

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <string>

namespace shedlock::providers::detail {

/// The libpq connection string for `options` (values quoted; includes the password, so it is
/// never shown anywhere). `with_options`: libpq `options` give the session DateStyle ISO and
/// the statement timeout (a pooler may refuse them: postgres_options::pooler).
std::string postgres_conninfo(const postgres_options& options, bool with_options);

}  // namespace shedlock::providers::detail
