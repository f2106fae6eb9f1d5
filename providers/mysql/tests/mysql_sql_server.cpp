// MySQL/MariaDB under the shared SQL-server suites (tests/sql_server): its test server, its
// parts, and what it says where the backends differ.
#include "backend_parts.hpp"
#include "mysql_test_server.hpp"

#include <shedlock/providers/mysql_idempotency_store.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/mysql_run_store.hpp>

namespace shedlock::test::sql_server {
namespace {

using namespace providers;
using namespace std::chrono_literals;
namespace server = mysql_server;

/// KILLs the connections from client `ports` (the server knows each by "host:port").
void kill_connections(const std::vector<int>& ports) {
    std::string hosts;
    for (int p : ports) hosts += (hosts.empty() ? "'" : ", '") + std::string("127.0.0.1:") + std::to_string(p) + "'";
    const auto ids = server::first_column("SELECT ID FROM information_schema.PROCESSLIST WHERE HOST IN (" + hosts +
                                          ") AND ID <> CONNECTION_ID()");
    REQUIRE(ids.size() == ports.size());
    for (const auto& id : ids) server::exec("KILL CONNECTION " + id);
}

}  // namespace

constexpr case_words backend_words{"mysql", "database", "KILL CONNECTION", "mariadb"};

context make_backend() {
    return with_parts(
        context{
            .scheme = "mysql",
            .alias_scheme = "mariadb",
            .server_env = "SHEDLOCK_TEST_MARIADB",
            .password = server::password,
            .uri = server::uri,
            .exec = server::exec,
            .quote_mark = "`",
            .lock_until_ddl = "DATETIME(3)",
            .run_ddl_parts = {"AUTO_INCREMENT", "INDEX `{t}_task_id` (task, id)"},
            .claims_ddl_parts = {"VARBINARY(1020)"},
            .java_plain_table_ddl =
                [](const std::string& table) {
                    return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, "
                           "locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), "
                           "locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
                },
            .auth_failure = "Access denied",
            .user_in_auth_error = [](const std::string& user) { return "'" + user + "'"; },
            .redacted_user_in_auth_error = "'***'",
            .table_qualifier = [](const lock_options& o) { return o.database; },
            // The connector's read timeout (statement_timeout + 1 s, here 2 s) ends the wait; its
            // words do not name the deadline as PostgreSQL's do.
            .no_answer_error = "Lost connection to server during query",
            .without_tls_query = "ssl_mode=DISABLED",
            .uris = {"mariadb://app:s3cret@db.example:3307/locks?table=locks&use_db_time=1&pool_size=3"
                     "&connect_timeout=2s&statement_timeout=10s&create_schema=true",
                     {"db.example", 3307, "locks", "app", "s3cret", "locks", true, 3, 2s, 10s, true},
                     "mysql://app:***@db.example:3307/locks",
                     {{"mysql://u:s3cret@h/db?async_unlock=true", "unknown option \"async_unlock\""},
                      {"mysql://u:s3cret@h/db?use_db_time=maybe", "use_db_time=maybe"},
                      {"mysql://u:s3cret@[::1/db", "malformed"},
                      {"mysql://u:s3cret@h/db?table=a.b.c", "\"a.b.c\" is not a plain identifier"},
                      {"postgresql://u:s3cret@h/db", "accepts mysql:, mariadb:"}},
                     {}},
        },
        backend_functions<mysql_options, mysql_run_options>{.lock_provider = make_mysql_lock_provider,
                                                             .run_store = make_mysql_run_store,
                                                             .claims = make_mysql_idempotency_store,
                                                             .kill_sessions = kill_connections});
}

}  // namespace shedlock::test::sql_server
