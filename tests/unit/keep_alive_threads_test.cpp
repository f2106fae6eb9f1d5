// Keep-alive of a locking_task_executor used alone: every extension runs on the process's one
// shared timer thread, so 50 executions under keep-alive add that one thread, not 50 (seen
// failing before: one std::thread per keep-alive).
#include "thread_count.hpp"

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::process_threads;

TEST_CASE("keep-alive: 50 kept-alive executions share one timer thread", "[executor][keep_alive]") {
    constexpr std::size_t tasks = 50;
    providers::memory_lock_provider locks;
    locking_task_executor executor(locks);
    std::atomic<std::size_t> running{0};
    std::atomic<bool> release{false};
    std::vector<execution_result> results(tasks);
    const auto before = process_threads();
    std::vector<std::thread> callers;
    for (std::size_t i = 0; i < tasks; ++i)
        callers.emplace_back([&, i] {
            execute_options options;
            options.keep_alive = true;  // extended every 100 ms
            results[i] = executor.execute([&](task_context&) {
                ++running;
                while (!release.load()) std::this_thread::sleep_for(5ms);
            }, lock_configuration{"kept-" + std::to_string(i), 200ms}, options);
        });
    while (running.load() < tasks) std::this_thread::sleep_for(5ms);
    std::size_t most = 0;
    for (int i = 0; i < 10; ++i) {  // over several rounds of extensions
        most = std::max(most, process_threads());
        std::this_thread::sleep_for(60ms);
    }
    const bool still_held = !locks.try_lock({"kept-0", 50ms}) && !locks.try_lock({"kept-49", 50ms});
    release = true;
    for (auto& t : callers) t.join();
    // The callers, the shared timer thread and no more (2 to spare for the runtime's own).
    CHECK(most <= before + tasks + 1 + 2);
    CHECK(still_held);
    for (const auto& r : results) {
        CHECK(r.outcome == run_outcome::succeeded);
        CHECK_FALSE(r.lock_lost);
    }
}
