// Executor listeners: every outcome reaches each listener exactly once, in the documented order,
// on the thread that called execute(); a throwing listener breaks neither the run nor the others.
#include "recording_listener.hpp"
#include "unavailable_provider.hpp"

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using test::listener_call;
using test::recording_listener;

namespace {

std::vector<std::string> hooks_of(const std::vector<listener_call>& calls) {
    std::vector<std::string> hooks;
    for (const auto& c : calls) hooks.push_back(c.hook);
    return hooks;
}

/// Runs `execute` on a thread of its own and returns its result and id: the listener must see it.
template <typename Execute>
std::pair<execution_result, std::thread::id> on_own_thread(Execute execute) {
    execution_result result;
    std::thread::id id;
    std::thread worker([&] {
        id = std::this_thread::get_id();
        result = execute();
    });
    worker.join();
    return {result, id};
}

void check_all_from(const std::vector<listener_call>& calls, std::thread::id thread) {
    for (const auto& c : calls) CHECK(c.thread == thread);
}

/// In a body under a 100 ms lease with keep-alive: moves the clock past the lease before the
/// watchdog's first extension, whose failure cancels the body. Waits for that event (generously)
/// and returns whether it came.
bool lose_the_lease(manual_clock& clock, task_context& ctx) {
    clock.advance(1s);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!ctx.cancellation_requested() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    return ctx.cancellation_requested();
}

struct listened_executor {
    manual_clock clock;
    providers::memory_lock_provider locks{clock};
    locking_task_executor executor{locks};
    std::shared_ptr<recording_listener> heard = std::make_shared<recording_listener>();
    listened_executor() { executor.add_listener(heard); }
};

}  // namespace

TEST_CASE("listener: succeeded is on_acquired then on_finished, on the executing thread", "[executor][listener]") {
    listened_executor s;
    execute_options options;
    options.scheduled_at = s.clock.now();
    const auto [result, thread] = on_own_thread([&] {
        return s.executor.execute([](task_context& ctx) { ctx.count("rows", 3); }, {"job", 10s}, options);
    });
    REQUIRE(result.outcome == run_outcome::succeeded);
    const auto calls = s.heard->calls();
    CHECK(hooks_of(calls) == std::vector<std::string>{"acquired", "finished"});
    check_all_from(calls, thread);
    for (const auto& c : calls) {
        CHECK(c.lock_name == "job");
        CHECK(c.attempt == lock_attempt::acquired);
        CHECK(c.fencing_token == result.fencing_token);
        CHECK(c.scheduled_at == options.scheduled_at);
        CHECK(c.task.empty());  // a direct execute(): no scheduler task
    }
    CHECK(calls[1].outcome == run_outcome::succeeded);
}

TEST_CASE("listener: a task that throws is on_finished(failed) with the exception text", "[executor][listener]") {
    listened_executor s;
    const auto [result, thread] = on_own_thread([&] {
        return s.executor.execute([](task_context&) { throw std::runtime_error("disk full"); }, {"job", 10s});
    });
    REQUIRE(result.outcome == run_outcome::failed);
    const auto calls = s.heard->calls();
    CHECK(hooks_of(calls) == std::vector<std::string>{"acquired", "finished"});
    check_all_from(calls, thread);
    CHECK(calls[1].outcome == run_outcome::failed);
    CHECK(calls[1].message == "disk full");
}

TEST_CASE("listener: a lock held elsewhere is one on_skipped(skipped_locked), no on_acquired", "[executor][listener]") {
    listened_executor s;
    auto elsewhere = s.locks.try_lock({"job", 10s});
    REQUIRE(elsewhere);
    bool ran = false;
    const auto [result, thread] = on_own_thread([&] {
        return s.executor.execute([&](task_context&) { ran = true; }, {"job", 10s});
    });
    CHECK_FALSE(ran);
    REQUIRE(result.outcome == run_outcome::skipped_locked);
    const auto calls = s.heard->calls();
    REQUIRE(hooks_of(calls) == std::vector<std::string>{"skipped"});
    check_all_from(calls, thread);
    CHECK(calls[0].outcome == run_outcome::skipped_locked);
    CHECK(calls[0].attempt == lock_attempt::held_elsewhere);
    CHECK(calls[0].message == result.message);
    CHECK_FALSE(calls[0].fencing_token);
}

TEST_CASE("listener: an unavailable provider is one on_skipped(lock_error)", "[executor][listener]") {
    test::unavailable_provider down;
    locking_task_executor executor(down);
    auto heard = std::make_shared<recording_listener>();
    executor.add_listener(heard);
    const auto [result, thread] = on_own_thread([&] { return executor.execute([](task_context&) {}, {"job", 10s}); });
    REQUIRE(result.outcome == run_outcome::lock_error);
    const auto calls = heard->calls();
    REQUIRE(hooks_of(calls) == std::vector<std::string>{"skipped"});
    check_all_from(calls, thread);
    CHECK(calls[0].outcome == run_outcome::lock_error);
    CHECK(calls[0].attempt == lock_attempt::failed);
    CHECK(calls[0].message.find("connection refused") != std::string::npos);
}

TEST_CASE("listener: a done idempotency key is on_acquired then on_skipped(skipped_done)", "[executor][listener]") {
    listened_executor s;
    memory_idempotency_store claims{s.clock};
    execute_options options;
    options.idempotency = idempotency_options{&claims, "settle:20240601", 0ms};
    REQUIRE(s.executor.execute([](task_context&) {}, {"settle", 10s}, options).outcome == run_outcome::succeeded);
    const auto [result, thread] = on_own_thread([&] {
        return s.executor.execute([](task_context&) {}, {"settle", 10s}, options);
    });
    REQUIRE(result.outcome == run_outcome::skipped_done);
    auto calls = s.heard->calls();
    REQUIRE(hooks_of(calls) == std::vector<std::string>{"acquired", "finished", "acquired", "skipped"});
    calls.erase(calls.begin(), calls.begin() + 2);
    check_all_from(calls, thread);
    CHECK(calls[1].outcome == run_outcome::skipped_done);
    CHECK(calls[1].attempt == lock_attempt::acquired);  // the lock was taken, then released
    CHECK(calls[1].message == result.message);
    CHECK(s.locks.try_lock({"settle", 1s}));
}

TEST_CASE("listener: a keep-alive loss is on_lock_lost once, between on_acquired and on_finished", "[executor][listener]") {
    listened_executor s;
    execute_options options;
    options.keep_alive = true;
    bool cancelled = false;
    const auto [result, thread] = on_own_thread([&] {
        return s.executor.execute(
            [&](task_context& ctx) { cancelled = lose_the_lease(s.clock, ctx); },
            {"fragile", 100ms}, options);
    });
    REQUIRE(cancelled);
    REQUIRE(result.lock_lost);
    const auto calls = s.heard->calls();
    CHECK(hooks_of(calls) == std::vector<std::string>{"acquired", "lock_lost", "finished"});
    check_all_from(calls, thread);  // on_lock_lost too: after the body, not from the watchdog
    CHECK(calls[1].fencing_token == result.fencing_token);
    CHECK(calls[2].outcome == run_outcome::succeeded);
    CHECK(calls[2].lock_lost);
    CHECK(calls[2].message.find("lock lost") != std::string::npos);
}

TEST_CASE("listener: a nested run of a held lock is on_finished(reentrant) only", "[executor][listener]") {
    listened_executor s;
    const auto outer = s.executor.execute(
        [&](task_context&) {
            CHECK(s.executor.execute([](task_context&) {}, {"job", 10s}).outcome == run_outcome::succeeded);
        },
        {"job", 10s});
    REQUIRE(outer.outcome == run_outcome::succeeded);
    const auto calls = s.heard->calls();
    REQUIRE(hooks_of(calls) == std::vector<std::string>{"acquired", "finished", "finished"});
    CHECK(calls[1].attempt == lock_attempt::reentrant);
    CHECK_FALSE(calls[1].fencing_token);
    CHECK(calls[2].attempt == lock_attempt::acquired);
}

TEST_CASE("listener: one that throws is reported and neither the run nor the next listener notices",
          "[executor][listener]") {
    listened_executor s;  // its recorder is the first listener
    locking_task_executor executor(s.locks);
    std::vector<std::string> reported;
    executor.set_listener_error_handler([&](const std::string& line) { reported.push_back(line); });
    executor.add_listener(std::make_shared<test::throwing_listener>());
    auto after = std::make_shared<recording_listener>();
    executor.add_listener(after);
    execute_options options;
    options.keep_alive = true;
    const auto lost = executor.execute(
        [&](task_context& ctx) { lose_the_lease(s.clock, ctx); },
        {"fragile", 100ms}, options);
    REQUIRE(lost.lock_lost);
    auto held = s.locks.try_lock({"job", 10s});
    REQUIRE(held);
    CHECK(executor.execute([](task_context&) {}, {"job", 10s}).outcome == run_outcome::skipped_locked);
    CHECK(hooks_of(after->calls()) == std::vector<std::string>{"acquired", "lock_lost", "finished", "skipped"});
    REQUIRE(reported.size() == 4);
    CHECK(reported[0].find("on_acquired of lock \"fragile\": listener broke in on_acquired") != std::string::npos);
    CHECK(reported[1].find("on_lock_lost") != std::string::npos);
    CHECK(reported[2].find("on_finished of lock \"fragile\": a non-standard exception") != std::string::npos);
    CHECK(reported[3].find("on_skipped of lock \"job\"") != std::string::npos);
    CHECK(s.locks.try_lock({"fragile", 1s}));  // released despite the throws
}

TEST_CASE("listener: threads racing for one lock: each execution's outcome reaches it once, from its thread",
          "[executor][listener]") {
    providers::memory_lock_provider locks;
    metrics_registry metrics;
    locking_task_executor executor(locks, metrics, "memory");  // the metrics listener first, then ours
    auto heard = std::make_shared<recording_listener>();
    executor.add_listener(heard);
    constexpr int threads = 4, runs = 500;
    std::map<std::thread::id, std::map<run_outcome, int>> expected;
    std::mutex expected_mutex;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            std::map<run_outcome, int> mine;
            for (int i = 0; i < runs; ++i)
                ++mine[executor.execute([](task_context&) { std::this_thread::yield(); }, {"raced", 10s}).outcome];
            std::lock_guard lock(expected_mutex);
            expected[std::this_thread::get_id()] = mine;
        });
    for (auto& t : pool) t.join();
    std::map<std::thread::id, std::map<run_outcome, int>> heard_outcomes;
    std::map<std::thread::id, int> acquired;
    for (const auto& c : heard->calls()) {
        if (c.outcome) ++heard_outcomes[c.thread][*c.outcome];
        if (c.hook == "acquired") ++acquired[c.thread];
    }
    CHECK(heard_outcomes == expected);
    for (const auto& [thread, outcomes] : expected) {
        const auto ran = outcomes.find(run_outcome::succeeded);
        CHECK(acquired[thread] == (ran == outcomes.end() ? 0 : ran->second));
    }
    CHECK(metrics.gauge("shedlock_lock_held", "", {{"lock", "raced"}}).value() == 0);
}
