#include "mysql_connection.hpp"

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

/// mysql_library_init is not thread-safe; the first connection of the process calls it once.
void init_library() {
    static std::once_flag once;
    std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

}  // namespace

mysql_connection::mysql_connection(const mysql_options& options)
    : context_{options.redacted_uri()} {
    init_library();
    db_ = mysql_init(nullptr);
    if (!db_) throw storage_error(storage_category::other, "MySQL/MariaDB " + context_.shown + ": out of memory");
    configure(options);
    // Client flags 0: in particular never CLIENT_FOUND_ROWS.
    if (!mysql_real_connect(db_, options.host.c_str(), options.user.c_str(),
                            options.password ? options.password->c_str() : nullptr, options.database.c_str(),
                            options.port, nullptr, 0)) {
        const unsigned code = mysql_errno(db_);
        const std::string message = mysql_error(db_);
        mysql_close(db_);
        throw_mysql_error(code, message, context_, mysql_stage::connecting);
    }
    try {
        require_tls(db_, options.tls, context_);
    } catch (...) {
        mysql_close(db_);
        throw;
    }
    set_session(options);
}

mysql_connection::~mysql_connection() {
    statements_.clear();  // statements close before their connection
    mysql_close(db_);
}

void mysql_connection::configure(const mysql_options& options) {
    const unsigned connect = whole_seconds(options.connect_timeout);
    const unsigned io = whole_seconds(options.statement_timeout) + 1;
    const my_bool no = 0;
    mysql_optionsv(db_, MYSQL_OPT_CONNECT_TIMEOUT, &connect);
    mysql_optionsv(db_, MYSQL_OPT_READ_TIMEOUT, &io);
    mysql_optionsv(db_, MYSQL_OPT_WRITE_TIMEOUT, &io);
    mysql_optionsv(db_, MYSQL_OPT_RECONNECT, &no);
    mysql_optionsv(db_, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    apply_tls(db_, options.tls);
}

void mysql_connection::set_session(const mysql_options& options) {
    // MariaDB bounds every statement (seconds, fractional); MySQL only knows a SELECT limit in ms.
    const bool mariadb = std::string(mysql_get_server_info(db_)).find("MariaDB") != std::string::npos;
    const double seconds = std::chrono::duration<double>(options.statement_timeout).count();
    const std::string limit = mariadb ? ", max_statement_time = " + std::to_string(seconds)
                                      : ", max_execution_time = " + std::to_string(options.statement_timeout.count());
    try {
        run_text("SET time_zone = '+00:00'" + limit);
    } catch (...) {
        mysql_close(db_);
        throw;
    }
}

void mysql_connection::check_still_open() {
    pollfd idle{static_cast<int>(mysql_get_socket(db_)), POLLIN | POLLRDHUP, 0};
    if (idle.fd < 0 || ::poll(&idle, 1, 0) <= 0) return;
    // The server sends nothing unasked: on a plain connection anything readable now is its
    // goodbye (an error packet before it closed: idle timeout, killed session, shutdown). Over
    // TLS a late handshake record may be pending too, so only the closed stream counts there.
    const bool ended = (idle.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    if (!ended && mysql_get_ssl_cipher(db_) != nullptr) return;
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        "MySQL/MariaDB " + context_.shown +
                            ": the server closed the connection while it idled; the statement was not sent");
}

sql::sql_result mysql_connection::run_text(const std::string& sql) {
    check_still_open();
    std::string text = sql;
    while (!text.empty() && (text.back() == ';' || text.back() == '\n')) text.pop_back();
    if (mysql_real_query(db_, text.c_str(), text.size()) != 0) throw_mysql_error(db_, context_);
    sql::sql_result result;
    if (MYSQL_RES* rows = mysql_store_result(db_)) {
        const unsigned columns = mysql_num_fields(rows);
        while (MYSQL_ROW row = mysql_fetch_row(rows)) {
            const unsigned long* lengths = mysql_fetch_lengths(rows);
            auto& out = result.rows.emplace_back();
            for (unsigned i = 0; i < columns; ++i)
                out.push_back(row[i] ? std::optional<std::string>(std::string(row[i], lengths[i])) : std::nullopt);
        }
        mysql_free_result(rows);
    } else if (mysql_field_count(db_) != 0) {
        throw_mysql_error(db_, context_);
    }
    result.affected_rows = rows_matched_or(db_, static_cast<std::int64_t>(mysql_affected_rows(db_)));
    result.last_insert_id = static_cast<std::int64_t>(mysql_insert_id(db_));
    return result;
}

sql::sql_result mysql_connection::execute(const std::string& sql, const std::vector<sql::sql_param>& params) {
    // Parameterless statements (DDL, probes, listing) go as text: they run rarely.
    if (params.empty()) return run_text(sql);
    check_still_open();
    auto it = statements_.find(sql);
    if (it == statements_.end())
        it = statements_.emplace(sql, std::make_unique<mysql_statement>(db_, sql, context_)).first;
    return it->second->execute(params);
}

}  // namespace shedlock::providers::detail
