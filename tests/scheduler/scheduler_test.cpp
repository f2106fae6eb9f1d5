// The scheduler on the memory provider: firings, skips, lock-name templates, run_now, misfires.
#include "firing_witness.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <ctime>
#include <set>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

std::size_t count(memory_run_store& store, const std::string& task, run_outcome outcome) {
    std::size_t n = 0;
    for (const auto& r : store.last_runs(task, 100000)) n += r.outcome == outcome;
    return n;
}

template <typename Edit>
scheduler_options opts(Edit edit) {
    scheduler_options o;
    edit(o);
    return o;
}

}  // namespace

TEST_CASE("scheduler: a fixed_rate task fires repeatedly and every firing is recorded", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0};
    s.add(make_task("tick", [&](task_context& ctx) { ctx.count("scanned", 7); ++runs; }, fixed_rate(100ms),
                    lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() >= 5; }, 5s));
    s.stop(1s);
    const auto records = store.last_runs("tick", 100);
    REQUIRE(records.size() >= 5);
    std::int64_t previous_token = INT64_MAX;
    for (const auto& r : records) {  // newest first
        CHECK(r.outcome == run_outcome::succeeded);
        CHECK(r.lock_name == "tick");
        CHECK(r.counters.at("scanned") == 7);
        CHECK(r.started_at >= r.scheduled_at);
        CHECK(r.finished_at >= r.started_at);
        CHECK(r.instance == instance_id());
        REQUIRE(r.fencing_token);
        CHECK(*r.fencing_token < previous_token);
        previous_token = *r.fencing_token;
    }
    // Rate, not delay: slots are whole periods apart (a stalled machine may have skipped one).
    const auto gap = records[0].scheduled_at - records[1].scheduled_at;
    CHECK(gap >= 100ms);
    CHECK(gap % 100ms == 0ms);
}

TEST_CASE("scheduler: a task never overlaps itself on one instance (skipped_running)", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store, opts([](auto& o) { o.worker_threads = 4; }));
    std::atomic<int> inside{0}, overlaps{0}, runs{0};
    s.add(make_task("slow", [&](task_context&) {
        if (inside.fetch_add(1) != 0) ++overlaps;
        std::this_thread::sleep_for(180ms);
        inside.fetch_sub(1);
        ++runs;
    }, fixed_rate(50ms), lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() >= 3; }, 5s));
    s.stop(2s);
    CHECK(overlaps.load() == 0);
    CHECK(count(store, "slow", run_outcome::skipped_running) >= 4);
    CHECK(count(store, "slow", run_outcome::succeeded) == static_cast<std::size_t>(runs.load()));
}

TEST_CASE("scheduler: fixed_delay waits for completion plus the delay", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0};
    s.add(make_task("delayed", [&](task_context&) { std::this_thread::sleep_for(40ms); ++runs; }, fixed_delay(60ms),
                    lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() >= 3; }, 3s));
    s.stop(1s);
    const auto records = store.last_runs("delayed", 100);
    REQUIRE(records.size() >= 3);
    for (std::size_t i = 0; i + 1 < records.size(); ++i) {
        CHECK(records[i].outcome == run_outcome::succeeded);
        CHECK(records[i].scheduled_at - records[i + 1].finished_at >= 59ms);
    }
}

TEST_CASE("scheduler: two instances on one provider run each aligned slot once", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store_a, store_b;
    scheduler a(locks, store_a, opts([](auto& o) { o.instance = "a"; }));
    scheduler b(locks, store_b, opts([](auto& o) { o.instance = "b"; }));
    for (auto* s : {&a, &b})
        s->add(make_task("shared", [](task_context&) {}, aligned_rate(500ms), lock_at_most_for("PT10S"),
                         lock_at_least_for("300ms")));  // tolerates ~200 ms of skew either way
    a.start();
    b.start();
    std::this_thread::sleep_for(4100ms);
    a.stop(1s);
    b.stop(1s);
    std::map<timestamp, int> executions, skips;
    for (auto* store : {&store_a, &store_b})
        for (const auto& r : store->all()) {
            if (r.outcome == run_outcome::succeeded) ++executions[r.scheduled_at];
            if (r.outcome == run_outcome::skipped_locked) ++skips[r.scheduled_at];
        }
    CHECK(executions.size() >= 7);
    for (const auto& [at, n] : executions) {
        CHECK(n == 1);
        CHECK(at.time_since_epoch() % 500ms == 0ms);
    }
    CHECK(skips.size() >= 6);
}

TEST_CASE("scheduler: lock-name templates render {env} and {date} of the firing", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store, opts([](auto& o) { o.env = "test"; }));
    s.add(make_task("settle", [](task_context&) {}, fixed_rate(1h), lock_name("settle:{env}:{date}"),
                    lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return !store.last_runs("settle", 1).empty(); }, 2s));
    s.stop(1s);
    const auto r = store.last_runs("settle", 1).front();
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::time_point{r.scheduled_at});
    char day[16];
    std::strftime(day, sizeof day, "%Y%m%d", std::gmtime(&t));
    CHECK(r.lock_name == std::string("settle:test:") + day);
    CHECK(r.outcome == run_outcome::succeeded);
}

TEST_CASE("scheduler: run_now goes through the lock", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0};
    s.add(make_task("manual", [&](task_context&) { ++runs; }, cron("-"), lock_at_most_for("PT1M")));
    s.start();
    {
        auto held = locks.try_lock({"manual", 10s});
        REQUIRE(held);
        const auto r = s.run_now("manual");
        CHECK(r.outcome == run_outcome::skipped_locked);
        CHECK(runs.load() == 0);
    }
    const auto r = s.run_now("manual");
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK(runs.load() == 1);
    CHECK(store.last_runs("manual", 10).size() == 2);
    CHECK_THROWS_WITH(s.run_now("nope"), Catch::Contains("no task named \"nope\""));
    s.stop(1s);
    CHECK_THROWS_WITH(s.run_now("manual"), Catch::Contains("not running"));
}

TEST_CASE("scheduler: a jump of the wall clock skips missed firings instead of replaying them", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    manual_clock wall;
    scheduler s(locks, store, opts([&](auto& o) { o.clock = &wall; }));
    s.add(make_task("rate", [](task_context&) {}, fixed_rate(100ms), lock_at_most_for("PT1M")));
    s.add(make_task("graceful", [](task_context&) {}, fixed_rate(100ms), lock_at_most_for("PT1M"), misfire_grace(1h)));
    s.start();
    // Both firings at start recorded before the jump (waiting for one only raced with the other
    // under load: "graceful" then made its first run late and never caught up).
    REQUIRE(wait_for([&] { return store.last_runs("rate", 10).size() == 1 && store.last_runs("graceful", 10).size() == 1; }, 2s));
    wall.advance(10s);  // as if the process had been suspended for 10 s: 100 firings missed
    REQUIRE(wait_for([&] { return store.last_runs("graceful", 10).size() == 2; }, 2s));
    // A burst would fire at once: none within 10 firings of a live scheduler at the same rate.
    REQUIRE(test::firing_witness(100ms).wait_for_firings(10));
    CHECK(store.last_runs("rate", 100).size() == 1);      // the late slot was skipped, no burst
    CHECK(store.last_runs("graceful", 100).size() == 2);  // one catch-up run within its grace, no burst
    CHECK(s.stats().missed >= 1);
    wall.advance(100ms);  // the next slot after the jump fires normally
    CHECK(wait_for([&] { return store.last_runs("rate", 10).size() == 2; }, 2s));
    s.stop(1s);
}

TEST_CASE("scheduler: a task slower than lock_at_most_for without keep-alive is warned about", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::vector<std::string> warnings;
    std::mutex mutex;
    scheduler s(locks, store, opts([&](auto& o) {
        o.warn = [&](const std::string& w) {
            std::lock_guard lock(mutex);
            warnings.push_back(w);
        };
    }));
    s.add(make_task("overrun", [](task_context&) { std::this_thread::sleep_for(150ms); }, fixed_delay(1h),
                    lock_at_most_for("100ms")));
    s.start();
    REQUIRE(wait_for([&] { return !store.last_runs("overrun", 1).empty(); }, 2s));
    s.stop(1s);
    std::lock_guard lock(mutex);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("\"overrun\"") && Catch::Contains("longer than its lock_at_most_for PT0.1S"));
}

TEST_CASE("scheduler: start() warns when recorded runs took longer than lock_at_most_for", "[scheduler]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    run_record past;
    past.task = "report";
    past.started_at = timestamp{1'700'000'000'000ms};
    past.finished_at = past.started_at + 90s;
    store.append(past);
    std::vector<std::string> warnings;
    scheduler s(locks, store, opts([&](auto& o) { o.warn = [&](const std::string& w) { warnings.push_back(w); }; }));
    s.add(make_task("report", [](task_context&) {}, cron("0 0 3 * * *"), lock_at_most_for("PT1M")));
    s.add(make_task("fine", [](task_context&) {}, cron("0 0 3 * * *"), lock_at_most_for("PT1M")));
    s.start();
    s.stop(1s);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("task \"report\" has been seen to run PT1M30S") &&
                                Catch::Contains("longer than its lock_at_most_for PT1M"));
}
