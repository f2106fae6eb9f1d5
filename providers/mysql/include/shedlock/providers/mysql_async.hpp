#pragma once
/// \file
/// MySQL/MariaDB without blocking: connections on an Asio executor through MariaDB Connector/C's
/// non-blocking API, for the SQL layer's asynchronous lock service (the driver that
/// open_async_backend uses for mysql:// and mariadb:// URIs), benchmarks and tests.
/// Component shedlock::mysql_asio.

#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/async_sql_connection.hpp>

namespace shedlock::providers {

/// Opens non-blocking connections to the database `options` name, configured as the blocking
/// provider's (session time zone UTC, statement limit, TLS per ssl_mode, never CLIENT_FOUND_ROWS),
/// each on the executor it is given.
///
/// Connecting is bounded by connect_timeout (failure: storage_error `unavailable`, safe), each
/// statement by statement_timeout plus one second: past it the connection is closed and the
/// statement fails `unavailable`, in doubt (safe when it was never sent). The server itself
/// stops a statement after statement_timeout (`busy`, safe). Parameters travel as bound values
/// of server-side prepared statements, prepared once per connection.
///
/// A host name is resolved without blocking (Asio's resolver) and its addresses tried in turn,
/// all within connect_timeout; except under ssl_mode=VERIFY_IDENTITY, where the connector must
/// see the name to check the certificate and resolves it itself, blocking the executor for the
/// lookup: give a name the resolver answers at once (/etc/hosts) there. `localhost` is the
/// server's Unix socket, as for the blocking connection.
sql::async_connection_factory mysql_async_connections(const mysql_options& options);

}  // namespace shedlock::providers
