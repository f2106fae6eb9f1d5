#pragma once
// What every MariaDB Connector/C session of the provider shares, blocking or not (private:
// <mysql.h> stays here): its options, its session settings, the idle-close check and reading a
// text result.

#include "mysql_errors.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <mysql.h>

#include <string>

namespace shedlock::providers::detail {

/// mysql_library_init, once per process (it is not thread-safe).
void init_mysql_library();

/// Connector options of every session, before connecting: connect timeout, read/write timeout
/// (statement_timeout rounded up to whole seconds, plus one), no automatic reconnect (the pool
/// replaces a broken connection), utf8mb4 and the URI's TLS.
void configure_mysql_session(MYSQL* db, const mysql_options& options);

/// The statement that sets up a new session: time_zone '+00:00' (DATETIME values are UTC) and
/// the server-side statement limit (MariaDB `max_statement_time` in seconds, MySQL
/// `max_execution_time` in ms, chosen by the server `db` is connected to).
std::string mysql_session_setup(MYSQL* db, const mysql_options& options);

/// Throws a safe-to-retry storage_error(unavailable) when the server closed the connection
/// while it idled (a killed session, idle timeout, shutdown): checked before each statement is
/// sent, so a failure then is known not to have reached the server. Never blocks.
void check_still_open(MYSQL* db, const mysql_error_context& context);

/// The text statement without trailing ';' or newlines (the connector sends one statement).
std::string without_terminator(std::string sql);

/// After a text statement succeeded: its rows (from `rows`, which it frees; null when it
/// returned none), affected rows (rows matched for an UPDATE) and LAST_INSERT_ID. Throws
/// storage_error when the statement should have returned rows and `rows` is null.
sql::sql_result read_text_result(MYSQL* db, MYSQL_RES* rows, const mysql_error_context& context);

}  // namespace shedlock::providers::detail
