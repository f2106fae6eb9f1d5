#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {

mysql_options mysql_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"mysql", "mariadb"});
    mysql_options o;
    uri_options query(uri);
    sql::read_server_uri(uri, query, o);
    sql::read_sql_uri_options(query, o);
    query.finish();
    return o;
}

}  // namespace shedlock::providers
