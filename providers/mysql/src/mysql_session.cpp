#include "mysql_session.hpp"

#include "mysql_statement.hpp"
#include "mysql_tls.hpp"

#include <shedlock/error.hpp>

#include <mutex>

#include <poll.h>

namespace shedlock::providers::detail {
namespace {

unsigned whole_seconds(std::chrono::milliseconds d) {
    const auto s = std::chrono::ceil<std::chrono::seconds>(d).count();
    return static_cast<unsigned>(s < 1 ? 1 : s);
}

}  // namespace

void init_mysql_library() {
    static std::once_flag once;
    std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

void configure_mysql_session(MYSQL* db, const mysql_options& options) {
    const unsigned connect = whole_seconds(options.connect_timeout);
    const unsigned io = whole_seconds(options.statement_timeout) + 1;
    const my_bool no = 0;
    mysql_optionsv(db, MYSQL_OPT_CONNECT_TIMEOUT, &connect);
    mysql_optionsv(db, MYSQL_OPT_READ_TIMEOUT, &io);
    mysql_optionsv(db, MYSQL_OPT_WRITE_TIMEOUT, &io);
    mysql_optionsv(db, MYSQL_OPT_RECONNECT, &no);
    mysql_optionsv(db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    apply_tls(db, options.tls);
}

std::string mysql_session_setup(MYSQL* db, const mysql_options& options) {
    // MariaDB bounds every statement (seconds, fractional); MySQL only knows a SELECT limit in ms.
    const bool mariadb = std::string(mysql_get_server_info(db)).find("MariaDB") != std::string::npos;
    const double seconds = std::chrono::duration<double>(options.statement_timeout).count();
    const std::string limit = mariadb ? ", max_statement_time = " + std::to_string(seconds)
                                      : ", max_execution_time = " + std::to_string(options.statement_timeout.count());
    return "SET time_zone = '+00:00'" + limit;
}

void check_still_open(MYSQL* db, const mysql_error_context& context) {
    pollfd idle{static_cast<int>(mysql_get_socket(db)), POLLIN | POLLRDHUP, 0};
    if (idle.fd < 0 || ::poll(&idle, 1, 0) <= 0) return;
    // The server sends nothing unasked: on a plain connection anything readable now is its
    // goodbye (an error packet before it closed: idle timeout, killed session, shutdown). Over
    // TLS a late handshake record may be pending too, so only the closed stream counts there.
    const bool ended = (idle.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    if (!ended && mysql_get_ssl_cipher(db) != nullptr) return;
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        "MySQL/MariaDB " + context.shown +
                            ": the server closed the connection while it idled; the statement was not sent");
}

std::string without_terminator(std::string sql) {
    while (!sql.empty() && (sql.back() == ';' || sql.back() == '\n')) sql.pop_back();
    return sql;
}

sql::sql_result read_text_result(MYSQL* db, MYSQL_RES* rows, const mysql_error_context& context) {
    sql::sql_result result;
    if (rows) {
        const unsigned columns = mysql_num_fields(rows);
        while (MYSQL_ROW row = mysql_fetch_row(rows)) {
            const unsigned long* lengths = mysql_fetch_lengths(rows);
            auto& out = result.rows.emplace_back();
            for (unsigned i = 0; i < columns; ++i)
                out.push_back(row[i] ? std::optional<std::string>(std::string(row[i], lengths[i])) : std::nullopt);
        }
        mysql_free_result(rows);
    } else if (mysql_field_count(db) != 0) {
        throw_mysql_error(db, context);
    }
    result.affected_rows = rows_matched_or(db, static_cast<std::int64_t>(mysql_affected_rows(db)));
    result.last_insert_id = static_cast<std::int64_t>(mysql_insert_id(db));
    return result;
}

}  // namespace shedlock::providers::detail
