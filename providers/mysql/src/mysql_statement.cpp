#include "mysql_statement.hpp"

#include <shedlock/error.hpp>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace shedlock::providers::detail {

mysql_statement::mysql_statement(MYSQL* db, const std::string& sql, const mysql_error_context& context)
    : db_(db), stmt_(mysql_stmt_init(db)), context_(context) {
    if (!stmt_) throw_mysql_error(db_, context_, mysql_stage::preparing);
    if (mysql_stmt_prepare(stmt_, sql.c_str(), sql.size()) != 0) {
        const unsigned code = mysql_stmt_errno(stmt_);
        const std::string message = mysql_stmt_error(stmt_);
        mysql_stmt_close(stmt_);
        throw_mysql_error(code, message, context_, mysql_stage::preparing);
    }
}

mysql_statement::~mysql_statement() { mysql_stmt_close(stmt_); }

sql::sql_result mysql_statement::execute(const std::vector<sql::sql_param>& params) {
    param_binding binding(params);
    if (mysql_stmt_bind_param(stmt_, binding.binds()) != 0 || mysql_stmt_execute(stmt_) != 0)
        throw_mysql_error(stmt_, context_);
    sql::sql_result result;
    fetch_rows(result);
    read_statement_counts(db_, stmt_, result);
    return result;
}

void mysql_statement::fetch_rows(sql::sql_result& result) {
    MYSQL_RES* meta = mysql_stmt_result_metadata(stmt_);
    if (!meta) return;  // not a SELECT
    const unsigned columns = mysql_num_fields(meta);
    mysql_free_result(meta);
    row_binding rows(stmt_, columns);
    if (mysql_stmt_bind_result(stmt_, rows.binds()) != 0 || mysql_stmt_store_result(stmt_) != 0)
        throw_mysql_error(stmt_, context_);
    rows.read_rows(result, context_);
}

param_binding::param_binding(const std::vector<sql::sql_param>& params)
    : binds_(params.size()), lengths_(params.size()), numbers_(params.size()) {
    for (std::size_t i = 0; i < params.size(); ++i) {
        std::memset(&binds_[i], 0, sizeof(MYSQL_BIND));
        if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
            numbers_[i] = *n;
            binds_[i].buffer_type = MYSQL_TYPE_LONGLONG;
            binds_[i].buffer = &numbers_[i];
        } else {
            const auto& text = std::get<std::string>(params[i]);
            lengths_[i] = text.size();
            binds_[i].buffer_type = MYSQL_TYPE_STRING;
            binds_[i].buffer = const_cast<char*>(text.data());  // read-only use by the connector
            binds_[i].buffer_length = text.size();
            binds_[i].length = &lengths_[i];
        }
    }
}

row_binding::row_binding(MYSQL_STMT* stmt, unsigned columns)
    : stmt_(stmt), buffers_(columns, std::vector<char>(width_)), lengths_(columns), nulls_(columns), binds_(columns) {
    for (unsigned i = 0; i < columns; ++i) {
        std::memset(&binds_[i], 0, sizeof(MYSQL_BIND));
        binds_[i].buffer_type = MYSQL_TYPE_STRING;
        binds_[i].buffer = buffers_[i].data();
        binds_[i].buffer_length = width_;
        binds_[i].length = &lengths_[i];
        binds_[i].is_null = &nulls_[i];
    }
}

void row_binding::read_rows(sql::sql_result& result, const mysql_error_context& context) {
    // A longer value (a run record's message or counters) reports MYSQL_DATA_TRUNCATED; it is
    // then read again whole, so no row is cut short or dropped.
    int status = 0;
    while ((status = mysql_stmt_fetch(stmt_)) == 0 || status == MYSQL_DATA_TRUNCATED) {
        auto& row = result.rows.emplace_back();
        for (unsigned i = 0; i < binds_.size(); ++i) {
            if (nulls_[i]) row.emplace_back();
            else if (lengths_[i] <= width_) row.emplace_back(std::string(buffers_[i].data(), lengths_[i]));
            else row.emplace_back(fetch_whole_column(i, lengths_[i], context));
        }
    }
    if (status == 1) throw_mysql_error(stmt_, context);
    mysql_stmt_free_result(stmt_);
}

std::string row_binding::fetch_whole_column(unsigned column, unsigned long length, const mysql_error_context& context) {
    std::string value(length, '\0');
    unsigned long got = 0;
    MYSQL_BIND bind;
    std::memset(&bind, 0, sizeof(MYSQL_BIND));
    bind.buffer_type = MYSQL_TYPE_STRING;
    bind.buffer = value.data();
    bind.buffer_length = length;
    bind.length = &got;
    if (mysql_stmt_fetch_column(stmt_, &bind, column, 0) != 0) throw_mysql_error(stmt_, context);
    value.resize(std::min(got, length));
    return value;
}

void read_statement_counts(MYSQL* db, MYSQL_STMT* stmt, sql::sql_result& result) {
    result.affected_rows = rows_matched_or(db, static_cast<std::int64_t>(mysql_stmt_affected_rows(stmt)));
    result.last_insert_id = static_cast<std::int64_t>(mysql_stmt_insert_id(stmt));
}

std::int64_t rows_matched_or(MYSQL* db, std::int64_t affected) {
    const char* info = mysql_info(db);
    constexpr std::string_view prefix = "Rows matched: ";
    if (!info || std::strncmp(info, prefix.data(), prefix.size()) != 0) return affected;
    return std::strtoll(info + prefix.size(), nullptr, 10);
}

}  // namespace shedlock::providers::detail
