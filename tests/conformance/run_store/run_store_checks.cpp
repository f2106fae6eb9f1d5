#include "run_store_checks.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace shedlock::test {

run_record sample_run(const std::string& task, int i, run_outcome outcome) {
    run_record r;
    r.task = task;
    r.lock_name = task + ":20240601";
    r.instance = "host:42";
    r.scheduled_at = timestamp{1'717'200'000'000ms + std::chrono::seconds{i}};
    r.started_at = r.scheduled_at + 3ms;
    r.finished_at = r.started_at + 250ms;
    r.outcome = outcome;
    return r;
}

void check_run_round_trip(run_store& store) {
    auto r = sample_run("settle", 1);
    r.fencing_token = 9'007'199'254'740'993;  // beyond a double's exact range
    r.message = "it's done; 100% = fine \xC3\xA9 " + std::string(5000, 'x');
    r.counters = {{"scanned", 42}, {"odd;key=%", -3}};
    r.lock_lost = true;
    store.append(r);
    store.append(sample_run("settle", 2, run_outcome::skipped_locked));
    const auto runs = store.last_runs("settle", 10);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].outcome == run_outcome::skipped_locked);
    CHECK_FALSE(runs[0].fencing_token);
    CHECK_FALSE(runs[0].lock_lost);
    CHECK(runs[0].message.empty());
    CHECK(runs[0].counters.empty());
    const auto& got = runs[1];
    CHECK(got.task == r.task);
    CHECK(got.lock_name == r.lock_name);
    CHECK(got.instance == r.instance);
    CHECK(got.scheduled_at == r.scheduled_at);
    CHECK(got.started_at == r.started_at);
    CHECK(got.finished_at == r.finished_at);
    CHECK(got.outcome == run_outcome::succeeded);
    CHECK(got.fencing_token == r.fencing_token);
    CHECK(got.message == r.message);
    CHECK(got.counters == r.counters);
    CHECK(got.lock_lost);
    CHECK(store.last_runs("settle", 0).empty());
    CHECK(store.last_runs("never-ran", 5).empty());
}

void check_runs_newest_first_and_capped(run_store& store) {
    for (int i = 0; i < 12; ++i) store.append(sample_run("a", i));
    store.append(sample_run("b", 0));
    const auto runs = store.last_runs("a", 100);
    REQUIRE(runs.size() == 5);
    for (std::size_t k = 0; k < runs.size(); ++k)
        CHECK(runs[k].scheduled_at == sample_run("a", 11 - static_cast<int>(k)).scheduled_at);
    const auto two = store.last_runs("a", 2);
    REQUIRE(two.size() == 2);
    CHECK(two[1].scheduled_at == sample_run("a", 10).scheduled_at);
    CHECK(store.last_runs("b", 10).size() == 1);
}

void check_runs_max_age(run_store& store, std::chrono::milliseconds age) {
    auto old = sample_run("aged", 1);
    old.finished_at = system_clock::instance().now() - 2 * age;
    store.append(old);
    std::this_thread::sleep_for(age + 100ms);
    auto fresh = sample_run("aged", 2);
    fresh.finished_at = system_clock::instance().now();
    store.append(fresh);
    const auto runs = store.last_runs("aged", 10);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].scheduled_at == fresh.scheduled_at);
}

void check_runs_max_age_keeps_recent(run_store& store) {
    const timestamp now = system_clock::instance().now();
    auto a = sample_run("recent", 1);
    a.finished_at = now - 1s;
    auto b = sample_run("recent", 2);  // scheduled long ago (2024), finished just now
    b.finished_at = now;
    store.append(a);
    store.append(b);
    CHECK(store.last_runs("recent", 10).size() == 2);
}

void check_runs_both_limits(run_store& store, std::chrono::milliseconds age) {
    auto old = sample_run("both", 0);
    old.finished_at = system_clock::instance().now() - 2 * age;
    store.append(old);
    std::this_thread::sleep_for(age + 100ms);
    for (int i = 1; i <= 2; ++i) {
        auto fresh = sample_run("both", i);
        fresh.finished_at = system_clock::instance().now();
        store.append(fresh);
    }
    auto runs = store.last_runs("both", 10);
    REQUIRE(runs.size() == 2);  // the aged one went, though the cap of 3 was not reached
    CHECK(runs[1].scheduled_at == sample_run("both", 1).scheduled_at);
    for (int i = 3; i <= 6; ++i) {
        auto fresh = sample_run("both", i);
        fresh.finished_at = system_clock::instance().now();
        store.append(fresh);
    }
    runs = store.last_runs("both", 10);
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].scheduled_at == sample_run("both", 6).scheduled_at);
    CHECK(runs[2].scheduled_at == sample_run("both", 4).scheduled_at);
}

void check_run_tasks_sorted_and_case_sensitive(run_store& store) {
    for (const char* task : {"b", "a", "B", "a", "a "}) store.append(sample_run(task, 0));
    CHECK(store.tasks() == std::vector<std::string>{"B", "a", "a ", "b"});
    CHECK(store.last_runs("a", 10).size() == 2);
    CHECK(store.last_runs("a ", 10).size() == 1);  // no trailing-space padding in comparisons
    CHECK(store.last_runs("B", 10).size() == 1);
    CHECK(store.last_runs("A", 10).empty());
}

void check_runs_concurrent_appends(run_store& store) {
    std::vector<std::thread> threads;
    std::mutex mutex;
    std::vector<std::string> failures;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&store, &failures, &mutex, t] {
            try {
                for (int i = 0; i < 25; ++i) store.append(sample_run("busy", t * 100 + i));
            } catch (const std::exception& e) {
                std::lock_guard lock(mutex);
                failures.emplace_back(e.what());
            }
        });
    for (auto& thread : threads) thread.join();
    CHECK(failures == std::vector<std::string>{});
    CHECK(store.last_runs("busy", 1000).size() == 100);
}

namespace {

run_record run_on(const std::string& instance, int i, run_outcome outcome) {
    auto r = sample_run("cluster", i, outcome);
    r.instance = instance;
    return r;
}

}  // namespace

void check_runs_of_instance(run_store& store) {
    // Each firing: one instance runs it, the other records a skip.
    for (int i = 0; i < 6; ++i) {
        const bool a_runs = i % 3 != 2;
        store.append(run_on("host-a:1", i, a_runs ? run_outcome::succeeded : run_outcome::skipped_locked));
        store.append(run_on("host-b:2", i, a_runs ? run_outcome::skipped_locked : run_outcome::succeeded));
    }
    store.append(run_on("Host-a:1", 7, run_outcome::failed));
    store.append(run_on("host-a:1 ", 8, run_outcome::failed));
    const auto b = store.last_runs_of_instance("cluster", "host-b:2", 100);
    REQUIRE(b.size() == 6);
    for (std::size_t k = 0; k < b.size(); ++k) {
        CHECK(b[k].instance == "host-b:2");
        CHECK(b[k].scheduled_at == sample_run("cluster", 5 - static_cast<int>(k)).scheduled_at);
    }
    CHECK(b[0].outcome == run_outcome::succeeded);
    CHECK(b[1].outcome == run_outcome::skipped_locked);
    const auto a = store.last_runs_of_instance("cluster", "host-a:1", 2);
    REQUIRE(a.size() == 2);
    CHECK(a[0].instance == "host-a:1");
    CHECK(a[0].scheduled_at == sample_run("cluster", 5).scheduled_at);
    CHECK(a[1].scheduled_at == sample_run("cluster", 4).scheduled_at);
    REQUIRE(store.last_runs_of_instance("cluster", "Host-a:1", 10).size() == 1);
    CHECK(store.last_runs_of_instance("cluster", "Host-a:1", 10)[0].outcome == run_outcome::failed);
    CHECK(store.last_runs_of_instance("cluster", "host-a:1 ", 10).size() == 1);
    CHECK(store.last_runs_of_instance("cluster", "host-c:3", 10).empty());
    CHECK(store.last_runs_of_instance("cluster", "", 10).empty());
    CHECK(store.last_runs_of_instance("never-ran", "host-a:1", 10).empty());
    CHECK(store.last_runs_of_instance("cluster", "host-a:1", 0).empty());
    CHECK(store.last_runs("cluster", 100).size() == 14);  // the unfiltered view has both
}

void check_runs_of_instance_behind_many(run_store& store) {
    store.append(run_on("rare:1", 0, run_outcome::succeeded));
    for (int i = 1; i <= 600; ++i) store.append(run_on("busy:2", i, run_outcome::skipped_locked));
    const auto rare = store.last_runs_of_instance("cluster", "rare:1", 5);
    REQUIRE(rare.size() == 1);
    CHECK(rare[0].scheduled_at == sample_run("cluster", 0).scheduled_at);
    CHECK(store.last_runs_of_instance("cluster", "busy:2", 1000).size() == 600);
}

}  // namespace shedlock::test
