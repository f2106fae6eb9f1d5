#include "mysql_connection.hpp"

#include <shedlock/providers/mysql_run_store.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {

mysql_run_options mysql_run_options::from_uri(const provider_uri& uri) {
    mysql_run_options o;
    o.server = mysql_options::from_uri(uri);
    sql::read_sql_run_uri_options(uri, o.server, o);
    return o;
}

std::unique_ptr<sql::sql_run_store> make_mysql_run_store(const mysql_run_options& options) {
    auto factory = [server = options.server]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::mysql_connection>(server);
    };
    return std::make_unique<sql::sql_run_store>(make_mysql_dialect(), std::move(factory), options);
}

}  // namespace shedlock::providers
