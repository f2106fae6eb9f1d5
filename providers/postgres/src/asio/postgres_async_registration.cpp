// The PostgreSQL driver of open_async_backend(): the SQL layer's asynchronous lock service over
// non-blocking libpq connections. Claims stay on the pool (no open_claims).
#include "postgres_async_connection.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_async.hpp>
#include <shedlock/providers/sql/sql_async_lock_service.hpp>

namespace shedlock::providers {

sql::async_connection_factory postgres_async_connections(const postgres_options& options) {
    return [options](asio::lock_service::executor_type executor,
                     asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
        detail::postgres_async_connect(std::move(executor), options, std::move(done));
    };
}

namespace {

std::unique_ptr<asio::lock_service> open_postgres_locks(const provider_uri& uri, backend_session& session,
                                                        asio::lock_service::executor_type executor) {
    // The blocking provider has checked the table and holds the statements the service runs.
    const auto* blocking = dynamic_cast<const sql::sql_lock_provider*>(&session.locks());
    if (!blocking)
        throw configuration_error("postgres: the non-blocking driver needs the session's SQL lock provider, and the "
                                  "session holds another kind of provider; open the URI with open_async_backend");
    const auto options = postgres_options::from_uri(uri);
    sql::sql_async_options async;
    async.connections = options.pool_size;
    async.pool_wait = options.pool_wait;
    async.description = "postgres, non-blocking libpq on Asio (" + std::to_string(options.pool_size) + " connections)";
    return sql::make_sql_async_lock_service(*blocking, postgres_async_connections(options), std::move(executor),
                                            std::move(async));
}

}  // namespace

void register_postgres_async_driver(asio::async_registry& registry) {
    registry.add(asio::async_registration{"postgres", open_postgres_locks, {}});
}

}  // namespace shedlock::providers
