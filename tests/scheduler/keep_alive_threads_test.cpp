// Keep-alive without a thread per task: 50 tasks under keep-alive in one scheduler add no thread
// beyond the workers that run their bodies (the extensions are timers on the scheduler's
// io_context). Seen failing before: one std::thread per keep-alive, 50 more threads.
#include "thread_count.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::process_threads;
using shedlock::test::wait_for;

TEST_CASE("keep-alive: 50 kept-alive tasks add no thread beyond the scheduler's workers", "[scheduler][keep_alive]") {
    constexpr std::size_t tasks = 50;
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::atomic<std::size_t> running{0};
    std::atomic<bool> release{false};
    const auto before = process_threads();
    scheduler_options options;
    options.worker_threads = tasks;  // every body runs at once
    scheduler s(locks, store, options);
    for (std::size_t i = 0; i < tasks; ++i)
        s.add(make_task("kept-" + std::to_string(i), [&](task_context&) {
            ++running;
            while (!release.load()) std::this_thread::sleep_for(5ms);
        }, fixed_rate(1h), lock_at_most_for("200ms"), keep_alive()));  // extended every 100 ms
    s.start();
    REQUIRE(wait_for([&] { return running.load() == tasks; }, 10s));
    // Over several rounds of extensions (the 200 ms leases would have run out without them).
    std::size_t most = 0;
    for (int i = 0; i < 10; ++i) {
        most = std::max(most, process_threads());
        std::this_thread::sleep_for(60ms);
    }
    const bool still_held = !locks.try_lock({"kept-0", 50ms}) && !locks.try_lock({"kept-49", 50ms});
    release = true;
    s.stop(5s);
    // The workers, the timer thread and no more (2 to spare for the runtime's own).
    CHECK(most <= before + tasks + 1 + 2);
    CHECK(still_held);
    for (std::size_t i = 0; i < tasks; ++i) {
        const auto runs = store.last_runs("kept-" + std::to_string(i), 1);
        REQUIRE(runs.size() == 1);
        CHECK(runs[0].outcome == run_outcome::succeeded);
        CHECK_FALSE(runs[0].lock_lost);
    }
}
