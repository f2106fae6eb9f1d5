// PostgreSQL under the shared SQL-server suites (tests/sql_server): its test server, its parts,
// and what it says where the backends differ.
#include "backend_parts.hpp"
#include "postgres_test_server.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/postgres_run_store.hpp>

#include <unistd.h>

namespace shedlock::test::sql_server {
namespace {

using namespace providers;
using namespace std::chrono_literals;
namespace server = postgres_server;

/// Terminates this process's connections to the server (as `pg_terminate_backend` by an operator
/// or a restart would), from a connection of its own, and waits until they are closed.
void terminate_own_connections() {
    const int port = postgres_options::from_uri(parse_provider_uri(server::uri())).port;
    const auto ports = tcp_client_ports(::getpid(), port);
    REQUIRE_FALSE(ports.empty());
    server::exec("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE client_port IN (" +
                 port_list(ports) + ") AND client_addr = inet_client_addr() AND pid <> pg_backend_pid()");
    REQUIRE(wait_until_closed(::getpid(), port, ports));
}

context make_context() {
    context c;
    c.scheme = "postgresql";
    c.alias_scheme = "postgres";
    c.server_env = "SHEDLOCK_TEST_POSTGRES";
    c.password = server::password;
    c.uri = server::uri;
    c.exec = server::exec;
    fill_parts<postgres_options, postgres_run_options>(
        c, [](const postgres_options& o, const shedlock::clock& clock) { return make_postgres_lock_provider(o, clock); },
        make_postgres_run_store, make_postgres_idempotency_store);
    c.kill_own_connections = terminate_own_connections;
    c.quote = [](const std::string& name) { return "\"" + name + "\""; };
    c.lock_until_ddl = "\"lock_until\" TIMESTAMP NOT NULL";
    c.run_ddl_parts = {"BIGSERIAL", "CREATE INDEX IF NOT EXISTS \"{t}_task_id\" ON \"{t}\" (task, id)"};
    c.java_plain_table_ddl = [](const std::string& table) {
        return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
               "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
    };
    c.auth_failure = "password authentication failed";
    c.user_in_auth_error = [](const std::string& user) { return "for user \"" + user + "\""; };
    c.redacted_user_in_auth_error = "\"***\"";
    c.table_qualifier = [](const lock_options&) {
        server::exec("CREATE SCHEMA IF NOT EXISTS shedlock_ops");
        return std::string("shedlock_ops");
    };
    c.session_timezone_env = "PGTZ";  // libpq sets the session's TimeZone from it
    c.no_answer_error = "no answer within 3 s";
    c.without_tls_query = "sslmode=disable";
    c.uris = {"postgres://app:s3cret@db.example:6543/locks?table=ops.locks&use_db_time=true&pool_size=2"
              "&connect_timeout=3s&statement_timeout=PT0.5S&create_schema=yes&async_unlock=false",
              {"db.example", 6543, "locks", "app", "s3cret", "ops.locks", true, 2, 3s, 500ms, true},
              "postgresql://app:***@db.example:6543/locks",
              {{"postgresql://u:s3cret@h/db?tabel=x", "unknown option \"tabel\""},
               {"postgresql://u:s3cret@h/db?pool_size=0", "pool_size=0"},
               {"postgresql://u:s3cret@h/db?connect_timeout=5", "connect_timeout"},
               {"postgresql://u:s3cret@h:99x/db", "malformed"},
               {"postgresql://u:s3cret@h/db?table=shedlock%3B%20drop%20table%20x",
                "\"shedlock; drop table x\" is not a plain identifier"},
               {"mysql://u:s3cret@h/db", "accepts postgresql:, postgres:"}},
              [](const std::string& every_key) {
                  CHECK_FALSE(postgres_options::from_uri(parse_provider_uri(every_key)).async_unlock);
                  CHECK(postgres_options::from_uri(parse_provider_uri("postgresql://h/db")).async_unlock);
              }};
    return c;
}

}  // namespace

const case_words& words() {
    static constexpr case_words postgres{"postgres", "schema", "pg_terminate_backend", "scheme"};
    return postgres;
}

const context& backend() {
    static const context postgres = make_context();
    return postgres;
}

}  // namespace shedlock::test::sql_server
