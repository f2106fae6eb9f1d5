// MySQL/MariaDB under the shared SQL-server suites (tests/sql_server): its test server, its
// parts, and what it says where the backends differ.
#include "backend_parts.hpp"
#include "mysql_test_server.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/providers/mysql_idempotency_store.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/mysql_run_store.hpp>

#include <unistd.h>

namespace shedlock::test::sql_server {
namespace {

using namespace providers;
using namespace std::chrono_literals;
namespace server = mysql_server;

/// KILLs this process's connections to the server (as an operator's KILL or a restart would),
/// from a connection of its own, and waits until they are closed.
void kill_own_connections() {
    const int port = mysql_options::from_uri(parse_provider_uri(server::uri())).port;
    const auto ports = tcp_client_ports(::getpid(), port);
    REQUIRE_FALSE(ports.empty());
    std::string hosts;
    for (int p : ports) hosts += (hosts.empty() ? "'" : ", '") + std::string("127.0.0.1:") + std::to_string(p) + "'";
    const auto ids = server::first_column("SELECT ID FROM information_schema.PROCESSLIST WHERE HOST IN (" + hosts +
                                          ") AND ID <> CONNECTION_ID()");
    REQUIRE(ids.size() == ports.size());
    for (const auto& id : ids) server::exec("KILL CONNECTION " + id);
    REQUIRE(wait_until_closed(::getpid(), port, ports));
}

context make_context() {
    context c;
    c.scheme = "mysql";
    c.alias_scheme = "mariadb";
    c.server_env = "SHEDLOCK_TEST_MARIADB";
    c.password = server::password;
    c.uri = server::uri;
    c.exec = server::exec;
    fill_parts<mysql_options, mysql_run_options>(
        c, [](const mysql_options& o, const shedlock::clock& clock) { return make_mysql_lock_provider(o, clock); },
        make_mysql_run_store, make_mysql_idempotency_store);
    c.kill_own_connections = kill_own_connections;
    c.quote = [](const std::string& name) { return "`" + name + "`"; };
    c.lock_until_ddl = "DATETIME(3)";
    c.run_ddl_parts = {"AUTO_INCREMENT", "INDEX `{t}_task_id` (task, id)"};
    c.claims_ddl_parts = {"VARBINARY(1020)"};
    c.java_plain_table_ddl = [](const std::string& table) {
        return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, "
               "locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL, "
               "PRIMARY KEY (name))";
    };
    c.auth_failure = "Access denied";
    c.user_in_auth_error = [](const std::string& user) { return "'" + user + "'"; };
    c.redacted_user_in_auth_error = "'***'";
    c.table_qualifier = [](const lock_options& o) { return o.database; };
    // The connector's read timeout (statement_timeout + 1 s, here 2 s) ends the wait; its words
    // do not name the deadline as PostgreSQL's do.
    c.no_answer_error = "Lost connection to server during query";
    c.without_tls_query = "ssl_mode=DISABLED";
    c.uris = {"mariadb://app:s3cret@db.example:3307/locks?table=locks&use_db_time=1&pool_size=3"
              "&connect_timeout=2s&statement_timeout=10s&create_schema=true",
              {"db.example", 3307, "locks", "app", "s3cret", "locks", true, 3, 2s, 10s, true},
              "mysql://app:***@db.example:3307/locks",
              {{"mysql://u:s3cret@h/db?async_unlock=true", "unknown option \"async_unlock\""},
               {"mysql://u:s3cret@h/db?use_db_time=maybe", "use_db_time=maybe"},
               {"mysql://u:s3cret@[::1/db", "malformed"},
               {"mysql://u:s3cret@h/db?table=a.b.c", "\"a.b.c\" is not a plain identifier"},
               {"postgresql://u:s3cret@h/db", "accepts mysql:, mariadb:"}},
              {}};
    return c;
}

}  // namespace

const case_words& words() {
    static constexpr case_words mysql{"mysql", "database", "KILL CONNECTION", "mariadb"};
    return mysql;
}

const context& backend() {
    static const context mysql = make_context();
    return mysql;
}

}  // namespace shedlock::test::sql_server
