// PostgreSQL under the shared SQL-server suites (tests/sql_server): its test server, its parts,
// and what it says where the backends differ.
#include "backend_parts.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/postgres_run_store.hpp>

namespace shedlock::test::sql_server {
namespace {

using namespace providers;
using namespace std::chrono_literals;
namespace server = postgres_server;

/// Terminates the backends serving client `ports` (as `pg_terminate_backend` by an operator).
void terminate_backends(const std::vector<int>& ports) {
    server::exec("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE client_port IN (" +
                 port_list(ports) + ") AND client_addr = inet_client_addr() AND pid <> pg_backend_pid()");
}

/// Checks async_unlock, PostgreSQL's own key: `every_key` turns it off, it is on by default.
void check_async_unlock(const std::string& every_key) {
    CHECK_FALSE(postgres_options::from_uri(parse_provider_uri(every_key)).async_unlock);
    CHECK(postgres_options::from_uri(parse_provider_uri("postgresql://h/db")).async_unlock);
}

}  // namespace

constexpr case_words backend_words{"postgres", "schema", "pg_terminate_backend", "scheme"};

context make_backend() {
    return with_parts(
        context{
            .scheme = "postgresql",
            .alias_scheme = "postgres",
            .server_env = "SHEDLOCK_TEST_POSTGRES",
            .password = server::password,
            .uri = server::uri,
            .exec = server::exec,
            .quote_mark = "\"",
            .lock_until_ddl = "\"lock_until\" TIMESTAMP NOT NULL",
            .run_ddl_parts = {"BIGSERIAL", "CREATE INDEX IF NOT EXISTS \"{t}_task_id\" ON \"{t}\" (task, id)"},
            .java_plain_table_ddl =
                [](const std::string& table) {
                    return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
                           "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
                },
            .auth_failure = "authentication failed",  // "password ..." from a server, "SASL ..." from PgBouncer
            .user_in_auth_error = [](const std::string& user) { return "for user \"" + user + "\""; },
            .redacted_user_in_auth_error = "\"***\"",
            .table_qualifier =
                [](const lock_options&) {
                    server::exec("CREATE SCHEMA IF NOT EXISTS shedlock_ops");
                    return std::string("shedlock_ops");
                },
            .session_timezone_env = "PGTZ",  // libpq sets the session's TimeZone from it
            .no_answer_error = "no answer within 3 s",
            .without_tls_query = "sslmode=disable",
            .uris = {"postgres://app:s3cret@db.example:6543/locks?table=ops.locks&use_db_time=true&pool_size=2"
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
                     check_async_unlock},
            .first_token = server::first_token,
        },
        backend_functions<postgres_options, postgres_run_options>{.lock_provider = make_postgres_lock_provider,
                                                                  .run_store = make_postgres_run_store,
                                                                  .claims = make_postgres_idempotency_store,
                                                                  .kill_sessions = terminate_backends});
}

}  // namespace shedlock::test::sql_server
