// The run store of every SQL server backend on its real test server: the shared run-store
// checks, schema handling and URIs. Every case uses its own table `runs_<case>_<pid>`, dropped at
// the end.
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"
#include "sql_scratch_table.hpp"
#include "sql_server_suite.hpp"
#include "startup_race.hpp"

#include <shedlock/error.hpp>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using Catch::Matchers::Contains;
using namespace std::chrono_literals;

namespace {

/// Options for table `runs_<name>_<pid>` (created on demand), dropped again with the guard.
struct scratch_table : shedlock::test::sql_scratch_table<sql::sql_run_options> {
    explicit scratch_table(const std::string& name) : sql_scratch_table(name, {}, backend().exec) {}
};

/// A run store on the test server.
std::unique_ptr<run_store> make_store(const sql::sql_run_options& o) {
    return backend().open_run_store({o, backend().server_options()});
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<run_store_backend> make_run_store_backend() {
    return std::make_unique<test::sql_run_store_backend<scratch_table>>(words().name, make_store);
}

}  // namespace shedlock::conformance

SQL_SERVER_CASE("{name} run store: a missing table prints the DDL, create_schema creates it", "[run_store]") {
    scratch_table t("schema");
    t.options.create_schema_if_missing = false;
    std::vector<std::string> ddl{"run-record table \"" + t.table + "\" does not exist",
                                 "CREATE TABLE IF NOT EXISTS " + backend().quote(t.table)};
    for (const auto& part : backend().run_ddl_parts) ddl.push_back(with_table(part, t.table));
    CHECK_THROWS_WITH(make_store(t.options), contains_all(ddl));
    CHECK_THROWS_WITH(make_store(t.options), !Contains(backend().password));
    t.options.create_schema_if_missing = true;
    make_store(t.options)->append(shedlock::test::sample_run("x", 1));
    t.options.create_schema_if_missing = false;
    auto reader = make_store(t.options);  // a second store reads what the first wrote
    CHECK(reader->last_runs("x", 5).size() == 1);
    CHECK(reader->tasks() == std::vector<std::string>{"x"});
}

SQL_SERVER_CASE("{name} run store: from_uri takes the lock URI plus runs_table", "[run_store][uri]") {
    const auto& b = backend();
    const auto o = b.read_run_uri(b.alias_scheme +
                                  "://app:s3cret@db.example:6543/locks?table=ops.locks&runs_table=ops.runs&create_schema=1"
                                  "&statement_timeout=2s");
    CHECK(o.run.table == "ops.runs");
    CHECK(o.run.create_schema_if_missing);
    CHECK(o.server.host == "db.example");
    CHECK(o.server.port == 6543);
    CHECK(o.server.database == "locks");
    CHECK(o.server.password == std::optional<std::string>{"s3cret"});
    CHECK(o.server.statement_timeout == 2s);
    CHECK(b.read_run_uri(b.scheme + "://h/db").run.table == "shedlock_runs");
    // The lock provider accepts the same URI (one URI opens both).
    CHECK(b.read_lock_uri(b.scheme + "://h/db?runs_table=r").table == "shedlock");
    CHECK_THROWS_AS(b.read_run_uri(b.scheme + "://u:s3cret@h/db?runs_table=bad-name"), configuration_error);
    CHECK_THROWS_WITH(b.read_run_uri(b.scheme + "://u:s3cret@h/db?runs=x"), Contains("runs") && !Contains("s3cret"));
}

SQL_SERVER_CASE("{name} run store: an unreachable server is unavailable, without the password", "[run_store]") {
    const auto& b = backend();
    const auto o = b.read_run_uri(b.scheme + "://u:s3cret@127.0.0.1:1/db?connect_timeout=1s");
    try {
        b.open_run_store(o);
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), !Contains("s3cret"));
    }
}

SQL_SERVER_CASE("{name} run store: 8 instances starting together on a missing table all come up", "[run_store]") {
    scratch_table t("together");
    t.options.pool_size = 1;
    for (int round = 0; round < 5; ++round) {
        backend().exec("DROP TABLE IF EXISTS " + t.table);
        shedlock::test::check_simultaneous_start(8, [&] { (void)make_store(t.options); });
    }
    auto store = make_store(t.options);
    store->append(shedlock::test::sample_run("together", 1));
    CHECK(store->last_runs("together", 10).size() == 1);
}
