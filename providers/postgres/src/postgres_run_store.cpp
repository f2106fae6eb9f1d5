#include "postgres_connection.hpp"

#include <shedlock/providers/postgres_run_store.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {

postgres_run_options postgres_run_options::from_uri(const provider_uri& uri) {
    postgres_run_options o;
    o.server = postgres_options::from_uri(uri);
    sql::read_sql_run_uri_options(uri, o.server, o);
    return o;
}

std::unique_ptr<sql::sql_run_store> make_postgres_run_store(const postgres_run_options& options) {
    auto factory = [server = options.server]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::postgres_connection>(server);
    };
    return std::make_unique<sql::sql_run_store>(make_postgres_dialect(), std::move(factory), options);
}

}  // namespace shedlock::providers
