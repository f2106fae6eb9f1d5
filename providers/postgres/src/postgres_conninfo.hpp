#pragma once
// The libpq connection string, shared by the blocking (libpqxx) and non-blocking (libpq) connections.

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace shedlock::providers::detail {

/// The libpq connection string for `options` (values quoted; includes the password, so it is
/// never shown anywhere). `with_options`: libpq `options` give the session DateStyle ISO and
/// the statement timeout (a pooler may refuse them: postgres_options::pooler). libpq's
/// connect_timeout applies to each server it tries: `per_server` (whole seconds, at least 1;
/// default options.connect_timeout). `servers`: libpq's host/hostaddr/port keys, default every
/// server of `options` in order.
std::string postgres_conninfo(const postgres_options& options, bool with_options,
                              std::optional<std::chrono::milliseconds> per_server = std::nullopt,
                              const std::string& servers = {});

/// libpq's host and port keys for `options`'s servers (one, or a multi-host list), and
/// target_session_attrs when it is not `any`.
std::string postgres_servers_conninfo(const postgres_options& options);

/// `value` in single quotes, with ' and \ escaped (libpq's own quoting rules).
std::string postgres_quoted(const std::string& value);

}  // namespace shedlock::providers::detail
