// One statement on a non-blocking session, as the blocking mysql_connection runs it: without
// parameters as text (mysql_real_query_start, mysql_store_result_start), with parameters as a
// server-side prepared statement, prepared once per session and cached (mysql_stmt_prepare_start,
// mysql_stmt_execute_start, mysql_stmt_store_result_start), the values bound as MYSQL_BINDs and
// never spliced into the SQL text. Connector/C 3.3 has the whole statement API non-blocking, so
// no value is ever escaped into text.
#include "mysql_async_session.hpp"

#include "mysql_session.hpp"

#include <shedlock/error.hpp>

#include <boost/asio/post.hpp>

namespace shedlock::providers::detail {

void mysql_async_session::execute(std::string sql, std::vector<sql::sql_param> params,
                                  asio::completion<sql::sql_result> done) {
    op_ = std::make_unique<operation>();
    op_->sql = std::move(sql);
    op_->params = std::move(params);
    op_->done = std::move(done);
    try {
        if (!usable()) {
            throw storage_error(storage_category::unavailable, retry_advice::safe,
                                "MySQL/MariaDB " + context_.shown +
                                    ": the connection is closed; the statement was not sent");
        }
        check_still_open(db_, context_);
    } catch (...) {
        broken_ = true;  // both are `unavailable`
        return complete(std::current_exception(), {});
    }
    start_deadline(options_.statement_timeout + std::chrono::seconds{1});
    if (op_->params.empty()) run_text();  // parameterless statements (DDL, probes, listing) go as text
    else run_prepared();
}

void mysql_async_session::run_text() {
    op_->sql = without_terminator(std::move(op_->sql));
    op_->sent = true;
    const int status = mysql_real_query_start(&int_ret_, db_, op_->sql.c_str(), op_->sql.size());
    run(status, [this](int ready) { return mysql_real_query_cont(&int_ret_, db_, ready); }, [this] {
        if (timed_out_) return complete(timeout_failure(op_->sent), {});
        if (int_ret_ != 0) return complete(failure_of(mysql_errno(db_), mysql_error(db_), mysql_stage::executing), {});
        const int status = mysql_store_result_start(&result_ret_, db_);
        run(status, [this](int ready) { return mysql_store_result_cont(&result_ret_, db_, ready); }, [this] {
            if (timed_out_) {
                if (result_ret_) mysql_free_result(result_ret_);
                return complete(timeout_failure(op_->sent), {});
            }
            // A result lost mid-way (the connection dropped while the rows came) is no result set
            // with an error: the connector then resets the field count too, so read_text_result
            // alone would take it for a statement without rows.
            if (!result_ret_ && mysql_errno(db_) != 0)
                return complete(failure_of(mysql_errno(db_), mysql_error(db_), mysql_stage::executing), {});
            try {
                complete(nullptr, read_text_result(db_, result_ret_, context_));
            } catch (...) {
                complete(std::current_exception(), {});
            }
        });
    });
}

void mysql_async_session::run_prepared() {
    if (auto it = statements_.find(op_->sql); it != statements_.end()) return prepared(it->second);
    MYSQL_STMT* stmt = mysql_stmt_init(db_);
    if (!stmt) return complete(failure_of(mysql_errno(db_), mysql_error(db_), mysql_stage::preparing), {});
    op_->stmt = stmt;
    const int status = mysql_stmt_prepare_start(&int_ret_, stmt, op_->sql.c_str(), op_->sql.size());
    run(status, [this](int ready) { return mysql_stmt_prepare_cont(&int_ret_, op_->stmt, ready); }, [this] {
        MYSQL_STMT* stmt = op_->stmt;
        if (timed_out_ || int_ret_ != 0) {
            auto failure = timed_out_ ? timeout_failure(op_->sent)
                                      : stmt_failure(stmt, mysql_stage::preparing);
            mysql_stmt_close(stmt);
            return complete(failure, {});
        }
        statements_.emplace(op_->sql, stmt);
        prepared(stmt);
    });
}

void mysql_async_session::prepared(MYSQL_STMT* stmt) {
    op_->stmt = stmt;
    op_->binding.emplace(op_->params);
    if (mysql_stmt_bind_param(stmt, op_->binding->binds()) != 0)
        return complete(stmt_failure(stmt, mysql_stage::preparing), {});
    op_->sent = true;
    const int status = mysql_stmt_execute_start(&int_ret_, stmt);
    run(status, [this](int ready) { return mysql_stmt_execute_cont(&int_ret_, op_->stmt, ready); },
        [this] { executed(); });
}

void mysql_async_session::executed() {
    MYSQL_STMT* stmt = op_->stmt;
    if (timed_out_) return complete(timeout_failure(op_->sent), {});
    if (int_ret_ != 0) return complete(stmt_failure(stmt, mysql_stage::executing), {});
    MYSQL_RES* meta = mysql_stmt_result_metadata(stmt);
    if (!meta) return stored();  // not a SELECT
    const unsigned columns = mysql_num_fields(meta);
    mysql_free_result(meta);
    op_->rows.emplace(stmt, columns);
    if (mysql_stmt_bind_result(stmt, op_->rows->binds()) != 0)
        return complete(stmt_failure(stmt, mysql_stage::executing), {});
    const int status = mysql_stmt_store_result_start(&int_ret_, stmt);
    run(status, [this](int ready) { return mysql_stmt_store_result_cont(&int_ret_, op_->stmt, ready); }, [this] {
        if (timed_out_) return complete(timeout_failure(op_->sent), {});
        if (int_ret_ != 0)
            return complete(stmt_failure(op_->stmt, mysql_stage::executing), {});
        stored();
    });
}

void mysql_async_session::stored() {
    sql::sql_result result;
    try {
        if (op_->rows) op_->rows->read_rows(result, context_);  // from memory: no I/O
        read_statement_counts(db_, op_->stmt, result);
    } catch (...) {
        return complete(std::current_exception(), {});
    }
    complete(nullptr, std::move(result));
}

void mysql_async_session::complete(std::exception_ptr failure, sql::sql_result result) {
    deadline_.cancel();
    ++deadline_id_;
    auto op = std::move(op_);
    boost::asio::post(executor_, [done = std::move(op->done), failure, result = std::move(result)]() mutable {
        done(failure, std::move(result));
    });
}

std::exception_ptr mysql_async_session::failure_of(unsigned code, const std::string& message, mysql_stage stage) {
    try {
        throw_mysql_error(code, message, context_, stage);
    } catch (const storage_error& e) {
        if (e.category() == storage_category::unavailable) broken_ = true;
        return std::current_exception();
    }
}

std::exception_ptr mysql_async_session::stmt_failure(MYSQL_STMT* stmt, mysql_stage stage) {
    return failure_of(mysql_stmt_errno(stmt), mysql_stmt_error(stmt), stage);
}

std::exception_ptr mysql_async_session::timeout_failure(bool sent) const {
    const auto limit = options_.statement_timeout + std::chrono::seconds{1};
    std::string message = "MySQL/MariaDB " + context_.shown + ": no answer within statement_timeout=" +
                          std::to_string(options_.statement_timeout.count()) + "ms plus 1 s (" +
                          std::to_string(limit.count()) + "ms); the connection was closed";
    message += sent ? std::string("; ") + may_have_been_applied : "; the statement was not sent";
    return std::make_exception_ptr(
        storage_error(storage_category::unavailable, sent ? retry_advice::in_doubt : retry_advice::safe, message));
}

std::exception_ptr mysql_async_session::closed_failure(bool sent) const {
    std::string message =
        "MySQL/MariaDB " + context_.shown + ": the connection was closed with the statement in flight";
    message += sent ? std::string("; ") + may_have_been_applied : "; the statement was not sent";
    return std::make_exception_ptr(
        storage_error(storage_category::unavailable, sent ? retry_advice::in_doubt : retry_advice::safe, message));
}

}  // namespace shedlock::providers::detail
