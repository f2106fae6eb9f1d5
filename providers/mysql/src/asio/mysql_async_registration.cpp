// The MySQL/MariaDB driver of open_async_backend(): the SQL layer's asynchronous lock service
// over non-blocking Connector/C sessions. Claims stay on the pool (no open_claims).
#include "mysql_async_open.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_async.hpp>
#include <shedlock/providers/sql/sql_async_lock_service.hpp>

namespace shedlock::providers {
namespace {

std::unique_ptr<asio::lock_service> open_mysql_locks(const provider_uri& uri, backend_session& session,
                                                     asio::lock_service::executor_type executor) {
    // The blocking provider has checked the table and holds the statements the service runs.
    const auto* blocking = dynamic_cast<const sql::sql_lock_provider*>(&session.locks());
    if (!blocking)
        throw configuration_error("mysql: the session's lock provider is not the SQL provider; the non-blocking "
                                  "driver needs it (open the URI with open_async_backend, prefer_pool to avoid it)");
    const auto options = mysql_options::from_uri(uri);
    sql::sql_async_options async;
    async.connections = options.pool_size;
    async.pool_wait = options.pool_wait;
    async.description = "mysql, non-blocking MariaDB Connector/C on Asio (" + std::to_string(options.pool_size) +
                        " connections)";
    return sql::make_sql_async_lock_service(*blocking, mysql_async_connections(options), std::move(executor),
                                            std::move(async));
}

}  // namespace

sql::async_connection_factory mysql_async_connections(const mysql_options& options) {
    return [options](asio::lock_service::executor_type executor,
                     asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
        detail::open_mysql_async(std::move(executor), options, std::move(done));
    };
}

void register_mysql_async_driver(asio::async_registry& registry) {
    registry.add(asio::async_registration{"mysql", open_mysql_locks, {}});
}

}  // namespace shedlock::providers
