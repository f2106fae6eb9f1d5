#include "sqlite_connection.hpp"

#include <shedlock/providers/sql/sql_uri_options.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

namespace shedlock::providers {

sqlite_run_options sqlite_run_options::from_uri(const provider_uri& uri) {
    const auto lock = sqlite_options::from_uri(uri);
    sqlite_run_options o;
    o.path = lock.path;
    o.busy_timeout = lock.busy_timeout;
    o.durability = lock.durability;
    sql::read_sql_run_uri_options(uri, lock, o);
    return o;
}

std::unique_ptr<sql::sql_run_store> make_sqlite_run_store(const sqlite_run_options& options) {
    sqlite_options connection_options;
    connection_options.path = options.path;
    connection_options.busy_timeout = options.busy_timeout;
    connection_options.durability = options.durability;
    auto factory = [connection_options]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::sqlite_connection>(connection_options);
    };
    return std::make_unique<sql::sql_run_store>(make_sqlite_dialect(), std::move(factory), options);
}

}  // namespace shedlock::providers
