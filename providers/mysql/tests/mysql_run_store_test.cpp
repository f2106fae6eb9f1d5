// The MySQL/MariaDB run store on the real test server: the shared run-store checks, schema handling
// and URIs. Every test uses its own table `runs_<test>_<pid>`, dropped at the end.
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"
#include "mysql_test_server.hpp"
#include "server_env.hpp"
#include "sql_scratch_table.hpp"
#include "startup_race.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_run_store.hpp>

#include <catch2/catch.hpp>
#include <mysql.h>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;
using namespace std::chrono_literals;

namespace test_server = shedlock::test::mysql_server;

namespace {

/// Options for table `runs_<name>_<pid>` (created on demand), dropped again with the guard.
struct scratch_table : test::sql_scratch_table<mysql_run_options> {
    explicit scratch_table(const std::string& name)
        : sql_scratch_table(name, mysql_run_options::from_uri(parse_provider_uri(test_server::uri())),
                            test_server::exec) {}
};

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<run_store_backend> make_run_store_backend() {
    return std::make_unique<test::sql_run_store_backend<scratch_table>>("mysql", make_mysql_run_store);
}

}  // namespace shedlock::conformance

TEST_CASE("mysql run store: a missing table prints the DDL, create_schema creates it", "[mysql][run_store]") {
    scratch_table t("schema");
    t.options.create_schema_if_missing = false;
    CHECK_THROWS_WITH(make_mysql_run_store(t.options),
                      Contains("run-record table \"" + t.table + "\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS `" + t.table + "`") && Contains("AUTO_INCREMENT") &&
                          Contains("INDEX `" + t.table + "_task_id` (task, id)"));
    CHECK_THROWS_WITH(make_mysql_run_store(t.options), !Contains(*t.options.server.password));
    t.options.create_schema_if_missing = true;
    make_mysql_run_store(t.options)->append(test::sample_run("x", 1));
    t.options.create_schema_if_missing = false;
    auto reader = make_mysql_run_store(t.options);  // a second store reads what the first wrote
    CHECK(reader->last_runs("x", 5).size() == 1);
    CHECK(reader->tasks() == std::vector<std::string>{"x"});
}

TEST_CASE("mysql run store: from_uri takes the lock URI plus runs_table", "[mysql][run_store][uri]") {
    const auto o = mysql_run_options::from_uri(parse_provider_uri(
        "mariadb://app:s3cret@db.example:6543/locks?table=ops.locks&runs_table=ops.runs&create_schema=1"
        "&statement_timeout=2s"));
    CHECK(o.table == "ops.runs");
    CHECK(o.create_schema_if_missing);
    CHECK(o.server.host == "db.example");
    CHECK(o.server.port == 6543);
    CHECK(o.server.database == "locks");
    CHECK(o.server.password == std::optional<std::string>{"s3cret"});
    CHECK(o.server.statement_timeout == 2s);
    CHECK(mysql_run_options::from_uri(parse_provider_uri("mysql://h/db")).table == "shedlock_runs");
    // The lock provider accepts the same URI (one URI opens both).
    CHECK(mysql_options::from_uri(parse_provider_uri("mysql://h/db?runs_table=r")).table == "shedlock");
    CHECK_THROWS_AS(mysql_run_options::from_uri(parse_provider_uri("mysql://u:s3cret@h/db?runs_table=bad-name")),
                    configuration_error);
    CHECK_THROWS_WITH(mysql_run_options::from_uri(parse_provider_uri("mysql://u:s3cret@h/db?runs=x")),
                      Contains("runs") && !Contains("s3cret"));
}

TEST_CASE("mysql run store: an unreachable server is unavailable, without the password", "[mysql][run_store]") {
    auto o = mysql_run_options::from_uri(parse_provider_uri("mysql://u:s3cret@127.0.0.1:1/db?connect_timeout=1s"));
    try {
        make_mysql_run_store(o);
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), !Contains("s3cret"));
    }
}

TEST_CASE("mysql run store: 8 instances starting together on a missing table all come up", "[mysql][run_store]") {
    scratch_table t("together");
    t.options.pool_size = 1;
    for (int round = 0; round < 5; ++round) {
        test_server::exec("DROP TABLE IF EXISTS " + t.table);
        test::check_simultaneous_start(8, [&] { (void)make_mysql_run_store(t.options); });
    }
    auto store = make_mysql_run_store(t.options);
    store->append(test::sample_run("together", 1));
    CHECK(store->last_runs("together", 10).size() == 1);
}
