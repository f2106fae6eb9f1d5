#pragma once
// Turning connector errors into storage_errors (private).

#include <mysql.h>

#include <optional>
#include <string>

namespace shedlock::providers::detail {

/// Identifies the server in messages without its password. The password is redacted from the
/// parsed URI, never searched for in the connector's text: replacing its text would reveal where
/// it occurs (a password equal to the user name would show as `user "***"`), and the client
/// library never echoes it.
struct mysql_error_context {
    std::string shown;  ///< URI with the password as ***
};

/// Throws storage_error for error `code` with `message`: client-side errors (2xxx) and server
/// shutdown/kill are `unavailable` (the pool replaces the connection), access errors
/// `access_denied`, unknown table/column `missing_schema`, lock waits and timeouts `busy`.
[[noreturn]] void throw_mysql_error(unsigned code, const std::string& message, const mysql_error_context& context);

[[noreturn]] inline void throw_mysql_error(MYSQL* db, const mysql_error_context& context) {
    throw_mysql_error(mysql_errno(db), mysql_error(db), context);
}

[[noreturn]] inline void throw_mysql_error(MYSQL_STMT* stmt, const mysql_error_context& context) {
    throw_mysql_error(mysql_stmt_errno(stmt), mysql_stmt_error(stmt), context);
}

}  // namespace shedlock::providers::detail
