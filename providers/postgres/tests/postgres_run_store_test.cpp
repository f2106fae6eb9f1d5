// The PostgreSQL run store on the real test server: the shared run-store checks, schema handling
// and URIs. Every test uses its own table `runs_<test>_<pid>`, dropped at the end.
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"
#include "postgres_test_server.hpp"
#include "server_env.hpp"
#include "sql_scratch_table.hpp"
#include "startup_race.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_run_store.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;
using namespace std::chrono_literals;

namespace test_server = shedlock::test::postgres_server;

namespace {

/// Options for table `runs_<name>_<pid>` (created on demand), dropped again with the guard.
struct scratch_table : test::sql_scratch_table<postgres_run_options> {
    explicit scratch_table(const std::string& name)
        : sql_scratch_table(name, postgres_run_options::from_uri(parse_provider_uri(test_server::uri())),
                            test_server::exec) {}
};

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<run_store_backend> make_run_store_backend() {
    return std::make_unique<test::sql_run_store_backend<scratch_table>>("postgres", make_postgres_run_store);
}

}  // namespace shedlock::conformance

TEST_CASE("postgres run store: a missing table prints the DDL, create_schema creates it", "[postgres][run_store]") {
    scratch_table t("schema");
    t.options.create_schema_if_missing = false;
    CHECK_THROWS_WITH(make_postgres_run_store(t.options),
                      Contains("run-record table \"" + t.table + "\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS \"" + t.table + "\"") && Contains("BIGSERIAL") &&
                          Contains("CREATE INDEX IF NOT EXISTS \"" + t.table + "_task_id\" ON \"" + t.table + "\" (task, id)"));
    CHECK_THROWS_WITH(make_postgres_run_store(t.options), !Contains(*t.options.server.password));
    t.options.create_schema_if_missing = true;
    make_postgres_run_store(t.options)->append(test::sample_run("x", 1));
    t.options.create_schema_if_missing = false;
    auto reader = make_postgres_run_store(t.options);  // a second store reads what the first wrote
    CHECK(reader->last_runs("x", 5).size() == 1);
    CHECK(reader->tasks() == std::vector<std::string>{"x"});
}

TEST_CASE("postgres run store: from_uri takes the lock URI plus runs_table", "[postgres][run_store][uri]") {
    const auto o = postgres_run_options::from_uri(parse_provider_uri(
        "postgres://app:s3cret@db.example:6543/locks?table=ops.locks&runs_table=ops.runs&create_schema=1"
        "&statement_timeout=2s"));
    CHECK(o.table == "ops.runs");
    CHECK(o.create_schema_if_missing);
    CHECK(o.server.host == "db.example");
    CHECK(o.server.port == 6543);
    CHECK(o.server.database == "locks");
    CHECK(o.server.password == std::optional<std::string>{"s3cret"});
    CHECK(o.server.statement_timeout == 2s);
    CHECK(postgres_run_options::from_uri(parse_provider_uri("postgresql://h/db")).table == "shedlock_runs");
    // The lock provider accepts the same URI (one URI opens both).
    CHECK(postgres_options::from_uri(parse_provider_uri("postgresql://h/db?runs_table=r")).table == "shedlock");
    CHECK_THROWS_AS(postgres_run_options::from_uri(parse_provider_uri("postgresql://u:s3cret@h/db?runs_table=bad-name")),
                    configuration_error);
    CHECK_THROWS_WITH(postgres_run_options::from_uri(parse_provider_uri("postgresql://u:s3cret@h/db?runs=x")),
                      Contains("runs") && !Contains("s3cret"));
}

TEST_CASE("postgres run store: an unreachable server is unavailable, without the password", "[postgres][run_store]") {
    auto o = postgres_run_options::from_uri(parse_provider_uri("postgresql://u:s3cret@127.0.0.1:1/db?connect_timeout=1s"));
    try {
        make_postgres_run_store(o);
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), !Contains("s3cret"));
    }
}

TEST_CASE("postgres run store: 8 instances starting together on a missing table all come up", "[postgres][run_store]") {
    scratch_table t("together");
    t.options.pool_size = 1;
    for (int round = 0; round < 5; ++round) {
        test_server::exec("DROP TABLE IF EXISTS " + t.table);
        test::check_simultaneous_start(8, [&] { (void)make_postgres_run_store(t.options); });
    }
    auto store = make_postgres_run_store(t.options);
    store->append(test::sample_run("together", 1));
    CHECK(store->last_runs("together", 10).size() == 1);
}
