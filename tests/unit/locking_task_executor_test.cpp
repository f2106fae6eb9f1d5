#include "unavailable_provider.hpp"

#include <shedlock/error.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace shedlock;
using std::chrono::milliseconds;


TEST_CASE("executor runs the task when the lock is free and releases it after", "[executor]") {
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider);
    std::optional<std::int64_t> token_seen;
    auto result = executor.execute(
        [&](task_context& ctx) {
            token_seen = ctx.fencing_token();
            ctx.count("scanned", 40);
            ctx.count("scanned", 2);
            ctx.count("cancelled");
            CHECK_FALSE(provider.try_lock({"job", milliseconds{1000}}));  // held while running
        },
        {"job", milliseconds{10'000}});
    CHECK(result.outcome == run_outcome::succeeded);
    CHECK(result.fencing_token == token_seen);
    CHECK(result.counters.at("scanned") == 42);
    CHECK(result.counters.at("cancelled") == 1);
    CHECK(provider.try_lock({"job", milliseconds{1000}}));  // released after
}

TEST_CASE("executor reports skipped_locked, failed and lock_error", "[executor]") {
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider);
    auto other = provider.try_lock({"job", milliseconds{10'000}});
    bool ran = false;
    auto skipped = executor.execute([&](task_context&) { ran = true; }, {"job", milliseconds{1000}});
    CHECK(skipped.outcome == run_outcome::skipped_locked);
    CHECK_FALSE(ran);

    auto failed = executor.execute([](task_context&) { throw std::runtime_error("disk full"); }, {"j2", milliseconds{1000}});
    CHECK(failed.outcome == run_outcome::failed);
    CHECK(failed.message == "disk full");
    CHECK(provider.try_lock({"j2", milliseconds{1000}}));  // a failed task releases its lock too

    test::unavailable_provider down;
    locking_task_executor down_executor(down);
    auto error = down_executor.execute([&](task_context&) { ran = true; }, {"j3", milliseconds{1000}});
    CHECK(error.outcome == run_outcome::lock_error);
    CHECK(error.message == "connection refused");
    CHECK_FALSE(ran);
    CHECK(std::string(to_string(run_outcome::skipped_running)) == "skipped_running");
    CHECK(parse_run_outcome("lock_error") == run_outcome::lock_error);
    CHECK_THROWS_AS(parse_run_outcome("skipped"), configuration_error);
}

TEST_CASE("executor is re-entrant for the lock the thread already holds", "[executor]") {
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider);
    run_outcome inner = run_outcome::failed;
    auto outer = executor.execute(
        [&](task_context&) { inner = executor.execute([](task_context&) {}, {"job", milliseconds{1000}}).outcome; },
        {"job", milliseconds{1000}});
    CHECK(outer.outcome == run_outcome::succeeded);
    CHECK(inner == run_outcome::succeeded);  // not skipped_locked by its own outer run
}

TEST_CASE("keep-alive extends a task that outlives lock_at_most_for", "[executor][keep_alive]") {
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider);
    std::atomic<bool> holding{false};
    std::atomic<bool> finished{false};
    std::atomic<bool> running{true};
    std::atomic<int> intruders{0};
    std::thread other([&] {
        while (!holding.load() && running.load()) std::this_thread::yield();  // only contend once the task holds it
        while (running.load()) {
            // An acquisition after the task finished is legitimate; `finished` is set before the
            // unlock, so reading it after acquiring tells the two apart.
            if (provider.try_lock({"long", milliseconds{1500}}) && !finished.load()) intruders.fetch_add(1);
            std::this_thread::sleep_for(milliseconds{10});
        }
    });
    execute_options options;
    options.keep_alive = true;
    // 1.5 s lease, extended every 750 ms: the margin absorbs a loaded (sanitizer, CI) machine.
    auto result = executor.execute(
        [&](task_context&) {
            holding = true;
            std::this_thread::sleep_for(milliseconds{4500});
            finished = true;
        },
        {"long", milliseconds{1500}}, options);
    running = false;
    other.join();
    CHECK(result.outcome == run_outcome::succeeded);
    CHECK_FALSE(result.lock_lost);
    CHECK(intruders.load() == 0);  // 3x lock_at_most_for, nobody else got in
}

TEST_CASE("keep-alive failure marks lock_lost and requests cancellation", "[executor][keep_alive]") {
    manual_clock clock;
    providers::memory_lock_provider provider(clock);
    locking_task_executor executor(provider);
    execute_options options;
    options.keep_alive = true;
    bool saw_cancel = false;
    auto result = executor.execute(
        [&](task_context& ctx) {
            clock.advance(milliseconds{1000});  // the lease runs out before the first extension
            for (int i = 0; i < 100 && !ctx.cancellation_requested(); ++i) std::this_thread::sleep_for(milliseconds{10});
            saw_cancel = ctx.cancellation_requested();
        },
        {"fragile", milliseconds{100}}, options);
    CHECK(saw_cancel);
    CHECK(result.lock_lost);
    CHECK(result.message.find("lock lost") != std::string::npos);
}
