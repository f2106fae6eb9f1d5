#pragma once
// One server-side prepared statement (private).

#include "mysql_errors.hpp"

#include <shedlock/providers/sql/sql_connection.hpp>

#include <mysql.h>

namespace shedlock::providers::detail {

/// Prepares `sql` on `db` once; `execute` binds the parameters (int64 or text) and returns
/// rows as text, affected rows and the statement's LAST_INSERT_ID. Throws storage_error.
class mysql_statement {
public:
    mysql_statement(MYSQL* db, const std::string& sql, const mysql_error_context& context);
    ~mysql_statement();
    mysql_statement(const mysql_statement&) = delete;
    mysql_statement& operator=(const mysql_statement&) = delete;

    sql::sql_result execute(const std::vector<sql::sql_param>& params);

private:
    void fetch_rows(sql::sql_result& result);
    /// The current row's value of `column`, `length` bytes long, fetched in full.
    std::string fetch_whole_column(unsigned column, unsigned long length);

    MYSQL* db_;
    MYSQL_STMT* stmt_;
    const mysql_error_context& context_;
};

/// Rows matched by the last UPDATE on `db` (from its info text "Rows matched: N ..."), or
/// `affected` when the statement reported no such text.
std::int64_t rows_matched_or(MYSQL* db, std::int64_t affected);

}  // namespace shedlock::providers::detail
