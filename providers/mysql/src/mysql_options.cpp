#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {
namespace {

// MySQL's client names; what each does with Connector/C is in mysql_tls.cpp.
const sql::tls_keys mysql_tls_keys{
    "ssl_mode", "ssl_ca", "ssl_cert", "ssl_key", {"DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"}};

/// Without a CA, Connector/C 3.3 has nothing to verify the server's certificate against.
void require_ca_to_verify(const provider_uri& uri, const sql::tls_options& tls) {
    if (tls.mode.rfind("VERIFY_", 0) != 0 || !tls.ca_file.empty()) return;
    throw configuration_error("provider URI \"" + uri.redacted() + "\": ssl_mode=" + tls.mode +
                              " needs ssl_ca=/path/to/ca.pem, the CA that signed the server's certificate");
}

}  // namespace

mysql_options mysql_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"mysql", "mariadb"});
    mysql_options o;
    uri_options query(uri);
    sql::read_server_uri(uri, query, o);
    if (o.host.find(',') != std::string::npos)
        throw configuration_error("provider URI \"" + uri.redacted() + "\": the host \"" + o.host +
                                  "\" is a list; MySQL/MariaDB URIs name one server (fail over behind a proxy such "
                                  "as ProxySQL or MaxScale, or a virtual address)");
    sql::read_sql_uri_options(query, o);
    o.tls = sql::read_tls_uri(uri, query, mysql_tls_keys);
    require_ca_to_verify(uri, o.tls);
    query.finish();
    return o;
}

}  // namespace shedlock::providers
