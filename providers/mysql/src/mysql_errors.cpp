#include "mysql_errors.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {
namespace {

storage_category category_of(unsigned code) {
    switch (code) {
        case 1044:  // ER_DBACCESS_DENIED_ERROR
        case 1045:  // ER_ACCESS_DENIED_ERROR
        case 1142:  // ER_TABLEACCESS_DENIED_ERROR
        case 1143:  // ER_COLUMNACCESS_DENIED_ERROR
            return storage_category::access_denied;
        case 1146:  // ER_NO_SUCH_TABLE
        case 1054:  // ER_BAD_FIELD_ERROR
            return storage_category::missing_schema;
        case 1213:  // ER_LOCK_DEADLOCK: this statement was the victim, rolled back
            return storage_category::conflict;
        case 1205:  // ER_LOCK_WAIT_TIMEOUT
        case 1969:  // ER_STATEMENT_TIMEOUT (MariaDB)
        case 3024:  // ER_QUERY_TIMEOUT (MySQL)
        case 1040:  // ER_CON_COUNT_ERROR
            return storage_category::busy;
        case 2026:  // CR_SSL_CONNECTION_ERROR: a certificate refused, or TLS demanded and not offered
            return storage_category::access_denied;
        case 1053:  // ER_SERVER_SHUTDOWN
        case 1927:  // ER_CONNECTION_KILLED
        case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT
            return storage_category::unavailable;
        default: break;
    }
    if (code >= 2000 && code < 3000) return storage_category::unavailable;  // client errors (CR_*)
    return storage_category::other;
}

std::string hint(unsigned code, storage_category category) {
    if (code == 2026) return "; check ssl_mode, ssl_ca (the CA that signed the server's certificate), ssl_cert and ssl_key";
    switch (category) {
        case storage_category::access_denied: return "; check the user, password and grants";
        case storage_category::unavailable: return "; is the server running and reachable?";
        default: return "";
    }
}

}  // namespace

retry_advice mysql_retry_advice(unsigned code, storage_category category, mysql_stage stage) {
    if (category != storage_category::unavailable) return default_retry_advice(category);
    if (stage != mysql_stage::executing) return retry_advice::safe;
    switch (code) {
        case 2006:  // CR_SERVER_GONE_ERROR: the statement could not be written
        case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT: the server had closed the idle connection
            return retry_advice::safe;
        default: return retry_advice::in_doubt;  // CR_SERVER_LOST (2013), killed, shutdown, ...
    }
}

void throw_mysql_error(unsigned code, const std::string& message, const mysql_error_context& context, mysql_stage stage) {
    const std::string& text = message;
    const auto category = category_of(code);
    const auto advice = mysql_retry_advice(code, category, stage);
    throw storage_error(category, advice,
                        "MySQL/MariaDB " + context.shown + ": " + text + " [error " + std::to_string(code) + "]" +
                            hint(code, category) +
                            (advice == retry_advice::in_doubt ? std::string("; ") + may_have_been_applied : ""));
}

}  // namespace shedlock::providers::detail
