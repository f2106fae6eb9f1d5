// The SQLite run store: round trip of every field, newest-first queries, retention, schema errors.
#include "run_store_checks.hpp"
#include "startup_race.hpp"
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using namespace std::chrono_literals;

namespace {

sqlite_run_options options_for(const std::string& file) {
    sqlite_run_options o;
    o.path = test::scratch_dir() + "/" + file;
    o.create_schema_if_missing = true;
    return o;
}

}  // namespace

TEST_CASE("sqlite run store: every field round-trips", "[sqlite][run_store]") {
    auto store = make_sqlite_run_store(options_for("roundtrip.db"));
    auto r = test::sample_run("settle", 1);
    r.fencing_token = 77;
    r.message = "it's done; 100% = fine";
    r.counters = {{"scanned", 42}, {"odd;key=%", -3}};
    r.lock_lost = true;
    store->append(r);
    auto skipped = test::sample_run("settle", 2, run_outcome::skipped_locked);
    store->append(skipped);
    const auto runs = store->last_runs("settle", 10);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].outcome == run_outcome::skipped_locked);
    CHECK_FALSE(runs[0].fencing_token);
    const auto& got = runs[1];
    CHECK(got.task == r.task);
    CHECK(got.lock_name == r.lock_name);
    CHECK(got.instance == r.instance);
    CHECK(got.scheduled_at == r.scheduled_at);
    CHECK(got.started_at == r.started_at);
    CHECK(got.finished_at == r.finished_at);
    CHECK(got.fencing_token == 77);
    CHECK(got.message == r.message);
    CHECK(got.counters == r.counters);
    CHECK(got.lock_lost);
    CHECK(store->tasks() == std::vector<std::string>{"settle"});
}

TEST_CASE("sqlite run store: last N newest first, retention per task", "[sqlite][run_store]") {
    auto o = options_for("retention.db");
    o.retention.max_per_task = 5;
    o.prune_every = 1;
    auto store = make_sqlite_run_store(o);
    for (int i = 0; i < 12; ++i) store->append(test::sample_run("a", i));
    store->append(test::sample_run("b", 0));
    const auto runs = store->last_runs("a", 100);
    REQUIRE(runs.size() == 5);
    CHECK(runs.front().scheduled_at == test::sample_run("a", 11).scheduled_at);
    CHECK(runs.back().scheduled_at == test::sample_run("a", 7).scheduled_at);
    CHECK(store->last_runs("a", 2).size() == 2);
    CHECK(store->last_runs("b", 10).size() == 1);
    CHECK(store->tasks() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("sqlite run store: a second store on the same file reads what the first wrote", "[sqlite][run_store]") {
    auto o = options_for("shared.db");
    auto writer = make_sqlite_run_store(o);
    writer->append(test::sample_run("x", 1));
    o.create_schema_if_missing = false;
    auto reader = make_sqlite_run_store(o);
    CHECK(reader->last_runs("x", 1).size() == 1);
}

TEST_CASE("sqlite run store: a missing table is an error that prints the DDL", "[sqlite][run_store]") {
    auto o = options_for("missing.db");
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
        const auto o = options_for("runs-together-" + std::to_string(round) + ".db");
        test::check_simultaneous_start(8, [&] { (void)make_sqlite_run_store(o); });
        auto store = make_sqlite_run_store(o);
        store->append(test::sample_run("together", 1));
        CHECK(store->last_runs("together", 10).size() == 1);
    }
}
