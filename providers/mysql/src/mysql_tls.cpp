#include "mysql_tls.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {

// What each ssl_mode means with Connector/C 3.3 (Debian 12), as verified against a server:
// - MYSQL_OPT_SSL_ENFORCE: use TLS when the server offers it (despite its name, it does not
//   refuse a server without TLS);
// - MYSQL_OPT_SSL_CA: once given, the server's certificate chain must lead to it;
// - MYSQL_OPT_SSL_VERIFY_SERVER_CERT: the certificate must also name the host connected to,
//   and a server without TLS is refused before login.
void apply_tls(MYSQL* db, const sql::tls_options& tls) {
    if (tls.mode.empty()) return;
    const my_bool on = tls.mode != "DISABLED" ? 1 : 0;
    const my_bool check_name = tls.mode == "VERIFY_IDENTITY" ? 1 : 0;
    mysql_optionsv(db, MYSQL_OPT_SSL_ENFORCE, &on);
    mysql_optionsv(db, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &check_name);
    if (!on) return;
    if (!tls.ca_file.empty()) mysql_optionsv(db, MYSQL_OPT_SSL_CA, tls.ca_file.c_str());
    if (!tls.cert_file.empty()) mysql_optionsv(db, MYSQL_OPT_SSL_CERT, tls.cert_file.c_str());
    if (!tls.key_file.empty()) mysql_optionsv(db, MYSQL_OPT_SSL_KEY, tls.key_file.c_str());
}

void require_tls(MYSQL* db, const sql::tls_options& tls, const mysql_error_context& context) {
    const bool demanded = tls.mode == "REQUIRED" || tls.mode == "VERIFY_CA" || tls.mode == "VERIFY_IDENTITY";
    if (!demanded || mysql_get_ssl_cipher(db) != nullptr) return;
    throw storage_error(storage_category::access_denied,
                        "MySQL/MariaDB " + context.shown + ": ssl_mode=" + tls.mode +
                            " but the server did not encrypt the session (it offers no TLS); enable TLS on the "
                            "server (ssl_cert, ssl_key) or check that nothing between strips it");
}

}  // namespace shedlock::providers::detail
