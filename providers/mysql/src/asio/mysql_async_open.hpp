#pragma once
// Opening one non-blocking connection for the pool (private).

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/async_sql_connection.hpp>

#include <memory>

namespace shedlock::providers::detail {

/// Opens a connection on `executor` as async_connection_factory promises: a host name is
/// resolved by Asio's resolver (getaddrinfo on a thread of its own, within connect_timeout) and
/// its addresses tried in order within what is left of connect_timeout, the connector getting an
/// address (it would otherwise resolve the name itself, blocking the executor). Left to the
/// connector: an address, `localhost` (its Unix socket), and any host under
/// ssl_mode=VERIFY_IDENTITY (the certificate is checked against the name it connects to).
void open_mysql_async(asio::lock_service::executor_type executor, const mysql_options& options,
                      asio::completion<std::unique_ptr<sql::async_sql_connection>> done);

}  // namespace shedlock::providers::detail
