// The SQLite run store: round trip of every field, newest-first queries, retention, schema errors.
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"
#include "startup_race.hpp"
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using namespace std::chrono_literals;

namespace {

sqlite_run_options run_options_for(const std::string& file) {
    sqlite_run_options o;
    o.path = test::scratch_dir() + "/" + file;
    o.create_schema_if_missing = true;
    return o;
}

}  // namespace

namespace shedlock::conformance {
namespace {

/// Each store in a database file of its own under the test's scratch directory.
class sqlite_run_store_backend final : public run_store_backend {
public:
    std::string name() const override { return "sqlite"; }
    std::unique_ptr<run_store> make_store(const run_retention& retention) override {
        auto o = run_options_for("suite-" + std::to_string(++stores_) + ".db");
        o.retention = retention;
        o.prune_every = 1;
        return make_sqlite_run_store(o);
    }

private:
    static inline int stores_ = 0;  // across backends: every test case gets new files
};

}  // namespace

std::unique_ptr<run_store_backend> make_run_store_backend() { return std::make_unique<sqlite_run_store_backend>(); }

}  // namespace shedlock::conformance

TEST_CASE("sqlite run store: a second store on the same file reads what the first wrote", "[sqlite][run_store]") {
    auto o = run_options_for("shared.db");
    auto writer = make_sqlite_run_store(o);
    writer->append(test::sample_run("x", 1));
    o.create_schema_if_missing = false;
    auto reader = make_sqlite_run_store(o);
    CHECK(reader->last_runs("x", 1).size() == 1);
}

TEST_CASE("sqlite run store: a missing table is an error that prints the DDL", "[sqlite][run_store]") {
    auto o = run_options_for("missing.db");
    o.create_schema_if_missing = false;
    CHECK_THROWS_WITH(make_sqlite_run_store(o), Catch::Contains("run-record table \"shedlock_runs\" does not exist") &&
                                                     Catch::Contains("CREATE TABLE IF NOT EXISTS \"shedlock_runs\"") &&
                                                     Catch::Contains("CREATE INDEX IF NOT EXISTS \"shedlock_runs_task_id\""));
    o.table = "bad name";
    CHECK_THROWS_AS(make_sqlite_run_store(o), configuration_error);
}

TEST_CASE("sqlite run store: from_uri takes the lock URI plus runs_table", "[sqlite][run_store][uri]") {
    const auto o = sqlite_run_options::from_uri(
        parse_provider_uri("sqlite:" + test::scratch_dir() + "/uri.db?table=locks&runs_table=runs&create_schema=1"
                           "&busy_timeout=2s&durability=full"));
    CHECK(o.path == test::scratch_dir() + "/uri.db");
    CHECK(o.table == "runs");
    CHECK(o.create_schema_if_missing);
    CHECK(o.busy_timeout == 2s);
    CHECK(o.durability == sqlite_durability::full);
    CHECK(sqlite_run_options::from_uri(parse_provider_uri("sqlite:x.db")).table == "shedlock_runs");
    CHECK_FALSE(sqlite_run_options::from_uri(parse_provider_uri("sqlite:x.db")).create_schema_if_missing);
    CHECK(sqlite_options::from_uri(parse_provider_uri("sqlite:x.db?runs_table=r")).table == "shedlock");
    CHECK_THROWS_AS(sqlite_run_options::from_uri(parse_provider_uri("sqlite:x.db?runs_table=no-good")), configuration_error);
    CHECK_THROWS_AS(sqlite_run_options::from_uri(parse_provider_uri("sqlite:x.db?runs=x")), configuration_error);
    auto store = make_sqlite_run_store(o);
    store->append(test::sample_run("u", 1));
    CHECK(store->last_runs("u", 1).size() == 1);
}

TEST_CASE("sqlite run store: 8 instances starting together on a new file all come up", "[sqlite][run_store]") {
    for (int round = 0; round < 5; ++round) {
        const auto o = run_options_for("runs-together-" + std::to_string(round) + ".db");
        test::check_simultaneous_start(8, [&] { (void)make_sqlite_run_store(o); });
        auto store = make_sqlite_run_store(o);
        store->append(test::sample_run("together", 1));
        CHECK(store->last_runs("together", 10).size() == 1);
    }
}
