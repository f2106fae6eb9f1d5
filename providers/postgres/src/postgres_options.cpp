#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {

postgres_options postgres_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"postgresql", "postgres"});
    postgres_options o;
    uri_options query(uri);
    sql::read_server_uri(uri, query, o);
    sql::read_sql_uri_options(query, o);
    if (auto v = query.flag("async_unlock")) o.async_unlock = *v;
    query.finish();
    return o;
}

}  // namespace shedlock::providers
