#pragma once
// An sql_connection over one SQLiteCpp database handle (private: SQLiteCpp stays out of public headers).

#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <SQLiteCpp/Database.h>

#include "sqlite_busy_wait.hpp"

#include <sqlite3.h>

#include <map>
#include <memory>

namespace shedlock::providers::detail {


class sqlite_connection final : public sql::sql_connection {
public:
    explicit sqlite_connection(const sqlite_options& options);
    sql::sql_result execute(const std::string& sql, const std::vector<sql::sql_param>& params) override;

private:
    /// A statement prepared once on this connection, used through the C API directly: values are
    /// bound without copies and rows read without SQLiteCpp's per-column objects.
    struct prepared_statement {
        std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> handle{nullptr, &sqlite3_finalize};
        int parameters = 0;  ///< sqlite3_bind_parameter_count
    };

    prepared_statement& prepared(const std::string& sql);
    void bind(const prepared_statement& stmt, const std::vector<sql::sql_param>& params);
    sql::sql_result step_all(sqlite3_stmt* stmt);
    [[noreturn]] void fail(int rc) const;

    std::string path_;
    std::unique_ptr<busy_wait_state> busy_state_;  // declared first: outlives db_'s handler
    std::unique_ptr<SQLite::Database> db_;
    std::map<std::string, prepared_statement, std::less<>> statements_;  // finalized before db_ closes
};

}  // namespace shedlock::providers::detail
