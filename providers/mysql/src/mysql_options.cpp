#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {

mysql_options mysql_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"mysql", "mariadb"});
    mysql_options o;
    if (!uri.host.empty()) o.host = uri.host;
    if (uri.port) o.port = *uri.port;
    if (!uri.path.empty()) o.database = uri.path;
    if (!uri.user.empty()) o.user = uri.user;
    o.password = uri.password;
    uri_options query(uri);
    sql::read_sql_uri_options(query, o);
    if (auto v = query.duration("connect_timeout")) o.connect_timeout = *v;
    if (auto v = query.duration("statement_timeout")) o.statement_timeout = *v;
    query.finish();
    return o;
}

std::string mysql_options::redacted_uri() const {
    provider_uri uri;
    uri.scheme = "mysql";
    uri.user = user;
    if (password) uri.password = "";
    uri.host = host;
    uri.port = port;
    uri.path = database;
    return uri.redacted();
}

}  // namespace shedlock::providers
