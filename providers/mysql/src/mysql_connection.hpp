#pragma once
// An sql_connection over one MariaDB Connector/C session (private: <mysql.h> stays here).

#include "mysql_errors.hpp"
#include "mysql_statement.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

#include <mysql.h>

#include <map>
#include <memory>

namespace shedlock::providers::detail {

/// One session: time_zone '+00:00' (DATETIME values are UTC), utf8mb4, never CLIENT_FOUND_ROWS
/// (it would report a held lock row as 1 affected row), no automatic reconnect (the pool
/// replaces a broken connection). For UPDATE statements `affected_rows` is the number of rows
/// MATCHED, so an UPDATE that happens to write the same values still counts.
class mysql_connection final : public sql::sql_connection {
public:
    explicit mysql_connection(const mysql_options& options);
    ~mysql_connection() override;
    mysql_connection(const mysql_connection&) = delete;
    mysql_connection& operator=(const mysql_connection&) = delete;

    sql::sql_result execute(const std::string& sql, const std::vector<sql::sql_param>& params) override;

private:
    void set_session(const mysql_options& options);
    sql::sql_result run_text(const std::string& sql);

    mysql_error_context context_;
    MYSQL* db_ = nullptr;
    std::map<std::string, std::unique_ptr<mysql_statement>, std::less<>> statements_;
};

}  // namespace shedlock::providers::detail
