#pragma once
/// \file
/// PostgreSQL without blocking a thread: libpq's asynchronous API on an Asio executor (component
/// shedlock::postgres_asio). open_async_backend() uses it for `postgresql://` URIs; this header
/// gives the connections themselves, for tests and benchmarks.

#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/async_sql_connection.hpp>

namespace shedlock::providers {

/// Opens non-blocking connections to the server `options` names (host, port, database, user,
/// password, TLS, connect_timeout, statement_timeout: as postgres_connections() does for the
/// blocking ones). Each connection does its I/O and completes on the executor it was opened on.
///
/// Failure: connecting fails with storage_error `unavailable` (safe: also when connect_timeout
/// passes), `access_denied` or `other` (permanent). A statement fails as the blocking connection's
/// would, with the same retry advice; one that got no answer within statement_timeout +
/// connect_timeout fails `unavailable`, in doubt, and its connection is closed (usable() false).
/// Messages show the server without its password.
sql::async_connection_factory postgres_async_connections(const postgres_options& options);

}  // namespace shedlock::providers
