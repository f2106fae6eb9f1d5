#pragma once
// One server-side prepared statement, and the parameter and row bindings that the blocking and
// the non-blocking connection share (private).

#include "mysql_errors.hpp"

#include <shedlock/providers/sql/sql_connection.hpp>

#include <mysql.h>

#include <vector>

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

    MYSQL* db_;
    MYSQL_STMT* stmt_;
    const mysql_error_context& context_;
};

/// The parameters as MYSQL_BINDs: int64 as LONGLONG, text as STRING pointing into `params`,
/// which must outlive the statement's execution. Not copied or moved: the binds point into it.
class param_binding {
public:
    explicit param_binding(const std::vector<sql::sql_param>& params);
    param_binding(const param_binding&) = delete;
    param_binding& operator=(const param_binding&) = delete;
    MYSQL_BIND* binds() noexcept { return binds_.data(); }

private:
    std::vector<MYSQL_BIND> binds_;
    std::vector<unsigned long> lengths_;
    std::vector<long long> numbers_;
};

/// A statement's result columns bound as text. Not copied or moved: the binds point into it.
class row_binding {
public:
    row_binding(MYSQL_STMT* stmt, unsigned columns);
    row_binding(const row_binding&) = delete;
    row_binding& operator=(const row_binding&) = delete;
    MYSQL_BIND* binds() noexcept { return binds_.data(); }
    /// After mysql_stmt_bind_result(binds()) and mysql_stmt_store_result (no I/O from here):
    /// appends every row to `result`, a value longer than the buffer read again whole, then
    /// frees the stored rows. Throws storage_error.
    void read_rows(sql::sql_result& result, const mysql_error_context& context);

private:
    /// The current row's value of `column`, `length` bytes long, fetched in full.
    std::string fetch_whole_column(unsigned column, unsigned long length, const mysql_error_context& context);

    static constexpr std::size_t width_ = 1024;  // enough for every lock column (at most VARCHAR(255))
    MYSQL_STMT* stmt_;
    std::vector<std::vector<char>> buffers_;
    std::vector<unsigned long> lengths_;
    std::vector<my_bool> nulls_;
    std::vector<MYSQL_BIND> binds_;
};

/// Affected rows (rows matched for an UPDATE) and LAST_INSERT_ID of `stmt`'s last execution.
void read_statement_counts(MYSQL* db, MYSQL_STMT* stmt, sql::sql_result& result);

/// Rows matched by the last UPDATE on `db` (from its info text "Rows matched: N ..."), or
/// `affected` when the statement reported no such text.
std::int64_t rows_matched_or(MYSQL* db, std::int64_t affected);

}  // namespace shedlock::providers::detail
