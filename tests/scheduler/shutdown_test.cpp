// stop(grace): no new firings, cancellation requested, running tasks finish within grace, their
// locks are released and their records written.
#include "firing_witness.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

TEST_CASE("shutdown: a running task is cancelled, finishes within grace, lock released, record written",
          "[scheduler][shutdown]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> started{false};
    scheduler s(locks, store);
    s.add(make_task("long", [&](task_context& ctx) {
        started = true;
        while (!ctx.cancellation_requested()) std::this_thread::sleep_for(5ms);
        std::this_thread::sleep_for(50ms);  // cleanup, committed before returning
        ctx.count("cancelled", 1);
    }, fixed_rate(1h), lock_at_most_for("PT1H")));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 2s));
    CHECK_FALSE(locks.try_lock({"long", 1s}));  // held while running
    // A grace far beyond any stall of a loaded machine: stop() returning long before it shows the
    // task was cancelled and awaited, not waited out (no speed bound).
    const auto t0 = std::chrono::steady_clock::now();
    s.stop(60s);
    CHECK(std::chrono::steady_clock::now() - t0 < 30s);
    CHECK_FALSE(s.running());
    const auto records = store.last_runs("long", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::succeeded);
    CHECK(records[0].counters.at("cancelled") == 1);
    CHECK(locks.try_lock({"long", 1s}));  // released by the executor after the body returned
}

TEST_CASE("shutdown: a task ignoring cancellation but finishing within grace is awaited", "[scheduler][shutdown]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> started{false};
    scheduler s(locks, store);
    s.add(make_task("stubborn", [&](task_context&) {
        started = true;
        std::this_thread::sleep_for(300ms);
    }, fixed_rate(1h), lock_at_most_for("PT1H")));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 2s));
    s.stop(2s);
    const auto records = store.last_runs("stubborn", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::succeeded);
    CHECK(records[0].finished_at - records[0].started_at >= 290ms);
    CHECK(locks.try_lock({"stubborn", 1s}));
}

TEST_CASE("shutdown: a task outrunning grace is reported, then awaited, no firing after stop", "[scheduler][shutdown]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> started{false};
    std::atomic<int> fast_runs{0};
    std::vector<std::string> warnings;
    scheduler_options options;
    options.warn = [&](const std::string& w) { warnings.push_back(w); };
    scheduler s(locks, store, options);
    s.add(make_task("overrun", [&](task_context&) {
        started = true;
        std::this_thread::sleep_for(2s);  // far past the 100 ms grace, even on a stalled machine
    }, fixed_rate(1h), lock_at_most_for("PT1H")));
    s.add(make_task("fast", [&](task_context&) { ++fast_runs; }, fixed_rate(20ms), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return started.load() && fast_runs.load() > 3; }, 2s));
    s.stop(100ms);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("\"overrun\" still running after the grace period"));
    REQUIRE(store.last_runs("overrun", 10).size() == 1);
    const int after_stop = fast_runs.load();
    // Nothing fires after stop(), over a window in which a live scheduler at the same rate fired 8 times.
    test::firing_witness witness(20ms);
    REQUIRE(witness.wait_for_firings(8));
    CHECK(fast_runs.load() == after_stop);
    CHECK(locks.try_lock({"overrun", 1s}));
}

TEST_CASE("shutdown: the destructor stops a running scheduler", "[scheduler][shutdown]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> started{false};
    {
        scheduler s(locks, store);
        s.add(make_task("in_dtor", [&](task_context& ctx) {
            started = true;
            while (!ctx.cancellation_requested()) std::this_thread::sleep_for(5ms);
        }, fixed_rate(1h), lock_at_most_for("PT1H")));
        s.start();
        REQUIRE(wait_for([&] { return started.load(); }, 2s));
    }
    REQUIRE(store.last_runs("in_dtor", 10).size() == 1);
    CHECK(locks.try_lock({"in_dtor", 1s}));
}
