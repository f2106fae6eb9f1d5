// The scheduler's metrics and status snapshot on the memory provider.
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

TEST_CASE("scheduler metrics: runs by outcome, durations, last success and next fire", "[scheduler][metrics]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    metrics_registry metrics;
    scheduler_options o;
    o.metrics = &metrics;
    o.provider_name = "memory";
    scheduler s(locks, store, o);
    std::atomic<int> ok_runs{0}, bad_runs{0};
    s.add(make_task("ok", [&](task_context&) { ++ok_runs; }, fixed_rate(50ms), lock_at_most_for("PT10S")));
    s.add(make_task("bad", [&](task_context&) { ++bad_runs; throw std::runtime_error("boom"); }, fixed_rate(50ms),
                    lock_at_most_for("PT10S")));
    s.add(make_task("later", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(wait_for([&] { return ok_runs.load() >= 3 && bad_runs.load() >= 3; }, 5s));
    const auto statuses = s.task_statuses();
    s.stop(1s);

    const auto& succeeded = metrics.counter("shedlock_task_runs_total", "", {{"task", "ok"}, {"outcome", "succeeded"}});
    CHECK(succeeded.value() >= 3);
    CHECK(metrics.counter("shedlock_task_runs_total", "", {{"task", "bad"}, {"outcome", "failed"}}).value() >= 3);
    CHECK(metrics.counter("shedlock_task_runs_total", "", {{"task", "bad"}, {"outcome", "succeeded"}}).value() == 0);
    CHECK(metrics.histogram("shedlock_task_duration_seconds", "", {{"task", "ok"}}).count() >= 3);
    CHECK(metrics.histogram("shedlock_task_lateness_seconds", "", {{"task", "ok"}}).count() >= 3);
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    CHECK(metrics.gauge("shedlock_task_last_success_timestamp_seconds", "", {{"task", "ok"}}).value() > now - 60);
    CHECK(metrics.gauge("shedlock_task_last_success_timestamp_seconds", "", {{"task", "bad"}}).value() == 0);
    const double next = metrics.gauge("shedlock_task_next_fire_timestamp_seconds", "", {{"task", "later"}}).value();
    CHECK(next > now + 3000);
    CHECK(next < now + 3700);
    CHECK(metrics.counter("shedlock_lock_attempts_total", "", {{"lock", "ok"}, {"outcome", "acquired"}}).value() >= 3);
    CHECK(metrics.metrics_text().find("shedlock_lock_acquire_seconds_count{provider=\"memory\"}") != std::string::npos);

    REQUIRE(statuses.size() == 3);
    const auto& bad = statuses[1];
    CHECK(bad.name == "bad");
    CHECK_FALSE(bad.schedule.empty());
    CHECK(bad.lock_at_most_for == 10s);
    REQUIRE_FALSE(bad.recent.empty());
    CHECK(bad.recent.back().outcome == run_outcome::failed);
    CHECK(bad.recent.back().message == "boom");
    REQUIRE(statuses[2].next_fire);
    CHECK(statuses[2].recent.size() == 1);  // fixed_rate fires at once, then in an hour
}

TEST_CASE("scheduler status: recent runs are capped, stop hooks run on stop", "[scheduler][metrics]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);  // no registry: status still works
    std::atomic<int> runs{0};
    std::atomic<bool> hook_ran{false};
    s.on_stop([&] { hook_ran = true; });
    s.add(make_task("fast", [&](task_context&) { ++runs; }, fixed_rate(5ms), lock_at_most_for("PT10S")));
    CHECK(s.task_statuses().empty());
    s.start();
    REQUIRE(wait_for([&] { return runs.load() >= 30; }, 10s));
    const auto statuses = s.task_statuses();
    s.stop(1s);
    CHECK(hook_ran.load());
    REQUIRE(statuses.size() == 1);
    CHECK(statuses[0].recent.size() == task_status::recent_capacity);
}
