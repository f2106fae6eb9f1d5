#pragma once
// The MariaDB server that ../server.sh starts, as every test of this folder reaches it: one
// definition, so the test files share it (also when CMake compiles them as one unity source).
#include "server_env.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

#include <mysql.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace shedlock::test::mysql_server {

inline const std::string password = "shedlock-test-pw";  // what providers/mysql/server.sh sets

inline std::string uri() { return required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh"); }

/// The first column of every row of `sql`, on a connection of its own; throws the server's error.
inline std::vector<std::string> first_column(const std::string& sql) {
    const auto o = providers::mysql_options::from_uri(parse_provider_uri(uri()));
    MYSQL* db = mysql_init(nullptr);
    std::vector<std::string> values;
    if (mysql_real_connect(db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                           o.database.c_str(), o.port, nullptr, 0) && mysql_query(db, sql.c_str()) == 0) {
        MYSQL_RES* rows = mysql_store_result(db);
        while (MYSQL_ROW row = rows ? mysql_fetch_row(rows) : nullptr) values.emplace_back(row[0] ? row[0] : "");
        if (rows) mysql_free_result(rows);
    }
    const std::string error = mysql_error(db);
    mysql_close(db);
    if (!error.empty()) throw std::runtime_error("mysql: " + error + " (in: " + sql + ")");
    return values;
}

/// Runs `sql` on a connection of its own, outside the provider; throws the server's error.
inline void exec(const std::string& sql) { (void)first_column(sql); }

}  // namespace shedlock::test::mysql_server
