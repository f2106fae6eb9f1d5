#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/uri_password.hpp>

namespace shedlock::providers::sql {

std::string server_options::redacted_uri(const std::string& scheme) const {
    provider_uri uri;
    uri.scheme = scheme;
    uri.user = user;
    if (password) uri.password = "";
    uri.host = host;
    uri.port = port;
    uri.path = database;
    return uri.redacted();
}

void read_server_uri(const provider_uri& uri, uri_options& query, server_options& out) {
    if (!uri.host.empty()) out.host = uri.host;
    if (uri.port) out.port = *uri.port;
    if (!uri.path.empty()) out.database = uri.path;
    if (!uri.user.empty()) out.user = uri.user;
    out.password = read_uri_password(uri, query);
    if (auto v = query.duration("connect_timeout")) out.connect_timeout = *v;
    if (auto v = query.duration("statement_timeout")) out.statement_timeout = *v;
}

}  // namespace shedlock::providers::sql
