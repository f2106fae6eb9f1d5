// Run-store conformance: what every run store (memory, SQLite, PostgreSQL, MySQL, Redis) does.
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::conformance;
using namespace std::chrono_literals;

namespace {

run_retention keep(std::size_t max_per_task, std::optional<std::chrono::milliseconds> max_age = std::nullopt) {
    run_retention r;
    r.max_per_task = max_per_task;
    r.max_age = max_age;
    return r;
}

}  // namespace

TEST_CASE("run store conformance: every field round-trips", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_run_round_trip(*backend->make_store(keep(1000)));
}

TEST_CASE("run store conformance: last N newest first, max_per_task", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_newest_first_and_capped(*backend->make_store(keep(5)));
}

TEST_CASE("run store conformance: max_age drops records finished longer ago", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_max_age(*backend->make_store(keep(1000, 300ms)), 300ms);
}

TEST_CASE("run store conformance: max_age keeps records finished within it", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_max_age_keeps_recent(*backend->make_store(keep(1000, 10s)));
}

TEST_CASE("run store conformance: max_per_task and max_age together", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_both_limits(*backend->make_store(keep(3, 300ms)), 300ms);
}

TEST_CASE("run store conformance: tasks() sorted bytewise, names case-sensitive", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_run_tasks_sorted_and_case_sensitive(*backend->make_store(keep(1000)));
}

TEST_CASE("run store conformance: the runs of one instance of the cluster", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_of_instance(*backend->make_store(keep(1000)));
}

TEST_CASE("run store conformance: an instance's run behind 600 newer ones of another", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_of_instance_behind_many(*backend->make_store(keep(1000)));
}

TEST_CASE("run store conformance: concurrent appends from threads", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    test::check_runs_concurrent_appends(*backend->make_store(keep(1000)));
}

TEST_CASE("run store conformance: the store reports the retention it applies", "[run_store_conformance]") {
    auto backend = make_run_store_backend();
    auto store = backend->make_store(keep(7, 90s));
    CHECK(store->retention().max_per_task == 7);
    CHECK(store->retention().max_age == std::optional<std::chrono::milliseconds>{90s});
}
