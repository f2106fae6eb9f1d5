#pragma once
// Turning connector errors into storage_errors (private).

#include <shedlock/error.hpp>

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

/// How far a request got when it failed, which decides whether retrying it is safe.
enum class mysql_stage {
    connecting,  ///< nothing was sent: safe to retry
    preparing,   ///< a statement was being prepared, not run: safe to retry
    executing,   ///< sent and run: a lost connection leaves it in doubt
};

/// Throws storage_error for error `code` with `message`: client-side errors (2xxx) and server
/// shutdown/kill are `unavailable` (the pool replaces the connection), access errors
/// `access_denied`, unknown table/column `missing_schema`, lock waits and timeouts `busy`.
/// Retry advice: safe while connecting or preparing, and for what the server refused or rolled
/// back (deadlock victim, lock wait or statement timeout, "server has gone away" (2006: the
/// statement could not be written), an idle connection it had closed); in doubt for a
/// connection lost while executing (CR_SERVER_LOST 2013, a killed session, shutdown).
[[noreturn]] void throw_mysql_error(unsigned code, const std::string& message, const mysql_error_context& context,
                                    mysql_stage stage = mysql_stage::executing);

[[noreturn]] inline void throw_mysql_error(MYSQL* db, const mysql_error_context& context,
                                           mysql_stage stage = mysql_stage::executing) {
    throw_mysql_error(mysql_errno(db), mysql_error(db), context, stage);
}

[[noreturn]] inline void throw_mysql_error(MYSQL_STMT* stmt, const mysql_error_context& context,
                                           mysql_stage stage = mysql_stage::executing) {
    throw_mysql_error(mysql_stmt_errno(stmt), mysql_stmt_error(stmt), context, stage);
}

/// The advice for error `code` of `category` at `stage` (see throw_mysql_error).
retry_advice mysql_retry_advice(unsigned code, storage_category category, mysql_stage stage);

}  // namespace shedlock::providers::detail
