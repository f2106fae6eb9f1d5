// Keep-alive: a task running 3x lock_at_most_for keeps its lock; a failing extension is recorded
// as lock_lost and requests cancellation.
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

/// Runs a 4.5 s task with lock_at_most_for 1.5 s while another instance keeps trying the lock;
/// returns how often the other instance got in.
int intruder_acquisitions(bool keep_alive_on, run_record& record) {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> running{false}, done{false};
    scheduler s(locks, store);
    s.add(make_task("guarded", [&](task_context&) {
        running = true;
        std::this_thread::sleep_for(4500ms);
        done = true;
    }, fixed_rate(1h), lock_at_most_for("1500ms"), keep_alive(keep_alive_on)));  // extended every 750 ms
    s.start();
    REQUIRE(wait_for([&] { return running.load(); }, 2s));
    int acquired = 0;
    while (!done.load()) {
        // `done` is set before the task's unlock: an acquisition after it is legitimate.
        if (auto other = locks.try_lock({"guarded", 50ms}); other && !done.load()) ++acquired;
        std::this_thread::sleep_for(20ms);
    }
    s.stop(2s);
    record = store.last_runs("guarded", 1).at(0);
    return acquired;
}

}  // namespace

TEST_CASE("keep-alive: a task running 3x lock_at_most_for keeps the lock", "[scheduler][keep_alive]") {
    run_record record;
    CHECK(intruder_acquisitions(true, record) == 0);
    CHECK(record.outcome == run_outcome::succeeded);
    CHECK_FALSE(record.lock_lost);
}

TEST_CASE("keep-alive: without it the same task loses the lock to another instance", "[scheduler][keep_alive]") {
    run_record record;
    CHECK(intruder_acquisitions(false, record) > 0);  // proves the test above can fail
}

TEST_CASE("keep-alive: a failed extension records lock_lost and requests cancellation", "[scheduler][keep_alive]") {
    manual_clock lock_time;  // the provider's clock: jumping it expires the lease under the task
    providers::memory_lock_provider locks(lock_time);
    memory_run_store store;
    std::atomic<bool> running{false};
    std::atomic<bool> saw_cancellation{false}, saw_lock_lost{false};
    scheduler s(locks, store);
    s.add(make_task("fragile", [&](task_context& ctx) {
        running = true;
        saw_cancellation = wait_for([&] { return ctx.cancellation_requested(); }, 5s);
        saw_lock_lost = ctx.lock_lost();  // asserted on the test thread: Catch is not thread-safe
    }, fixed_rate(1h), lock_at_most_for("200ms"), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return running.load(); }, 2s));
    lock_time.advance(1h);                              // the lease expired ...
    auto thief = locks.try_lock({"fragile", 1h});       // ... and another instance took over
    REQUIRE(thief);
    REQUIRE(wait_for([&] { return !store.last_runs("fragile", 1).empty(); }, 5s));
    s.stop(1s);
    CHECK(saw_cancellation.load());
    CHECK(saw_lock_lost.load());
    const auto r = store.last_runs("fragile", 1).front();
    CHECK(r.lock_lost);
    CHECK_THAT(r.message, Catch::Contains("lock lost"));
    CHECK(inspect(locks).list_locks().at(0).locked_by == thief->lease().owner);  // the thief's lock untouched
}

TEST_CASE("keep-alive: a body still running after the stop grace keeps its lock extended", "[scheduler][keep_alive]") {
    // The extensions are timers on the scheduler's timer thread: stop() must keep it running until
    // the last body returned, as the keep-alive threads of the past ran until their body returned.
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<bool> running{false}, release{false}, saw_cancellation{false};
    scheduler s(locks, store);
    s.add(make_task("stubborn", [&](task_context& ctx) {
        running = true;
        while (!release.load()) std::this_thread::sleep_for(5ms);  // ignores cancellation
        saw_cancellation = ctx.cancellation_requested();  // requested by stop() while it ran
    }, fixed_rate(1h), lock_at_most_for("300ms"), keep_alive()));  // extended every 150 ms
    s.start();
    REQUIRE(wait_for([&] { return running.load(); }, 2s));
    std::thread stopping([&] { s.stop(50ms); });  // returns once the body has
    int intruders = 0;
    for (int i = 0; i < 40; ++i) {  // 1.2 s: four leases past the grace
        if (locks.try_lock({"stubborn", 50ms})) ++intruders;
        std::this_thread::sleep_for(30ms);
    }
    release = true;
    stopping.join();
    CHECK(intruders == 0);
    CHECK(saw_cancellation.load());
    const auto r = store.last_runs("stubborn", 1).at(0);
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK_FALSE(r.lock_lost);
}
