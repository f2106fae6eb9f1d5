#pragma once
// An sql_connection over one SQLiteCpp database handle (private: SQLiteCpp stays out of public headers).

#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "sqlite_busy_wait.hpp"

#include <map>
#include <memory>

namespace shedlock::providers::detail {


class sqlite_connection final : public sql::sql_connection {
public:
    explicit sqlite_connection(const sqlite_options& options);
    sql::sql_result execute(const std::string& sql, const std::vector<sql::sql_param>& params) override;

private:
    SQLite::Statement& prepared(const std::string& sql);
    sql::sql_result step_all(SQLite::Statement& stmt);

    std::string path_;
    std::unique_ptr<busy_wait_state> busy_state_;  // declared first: outlives db_'s handler
    std::unique_ptr<SQLite::Database> db_;
    std::map<std::string, std::unique_ptr<SQLite::Statement>, std::less<>> statements_;
};

}  // namespace shedlock::providers::detail
