#include "mysql_connection.hpp"

#include "mysql_session.hpp"
#include "mysql_tls.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {

mysql_connection::mysql_connection(const mysql_options& options)
    : context_{options.redacted_uri()} {
    init_mysql_library();
    db_ = mysql_init(nullptr);
    if (!db_) throw storage_error(storage_category::other, "MySQL/MariaDB " + context_.shown + ": out of memory");
    configure_mysql_session(db_, options);
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

void mysql_connection::set_session(const mysql_options& options) {
    try {
        run_text(mysql_session_setup(db_, options));
    } catch (...) {
        mysql_close(db_);
        throw;
    }
}

sql::sql_result mysql_connection::run_text(const std::string& sql) {
    check_still_open(db_, context_);
    const std::string text = without_terminator(sql);
    if (mysql_real_query(db_, text.c_str(), text.size()) != 0) throw_mysql_error(db_, context_);
    return read_text_result(db_, mysql_store_result(db_), context_);
}

sql::sql_result mysql_connection::execute(const std::string& sql, const std::vector<sql::sql_param>& params) {
    // Parameterless statements (DDL, probes, listing) go as text: they run rarely.
    if (params.empty()) return run_text(sql);
    check_still_open(db_, context_);
    auto it = statements_.find(sql);
    if (it == statements_.end())
        it = statements_.emplace(sql, std::make_unique<mysql_statement>(db_, sql, context_)).first;
    return it->second->execute(params);
}

}  // namespace shedlock::providers::detail
