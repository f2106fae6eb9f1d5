// Listeners on real scheduler firings: every run record's outcome reaches each listener exactly
// once, on the worker thread of that firing, with the task name and scheduled time.
#include "recording_listener.hpp"
#include "unavailable_provider.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::recording_listener;
using shedlock::test::wait_for;

namespace {

using firing_key = std::pair<timestamp, run_outcome>;

std::multiset<firing_key> recorded(memory_run_store& store, const std::string& task) {
    std::multiset<firing_key> out;
    for (const auto& r : store.last_runs(task, 100000)) out.insert({r.scheduled_at, r.outcome});
    return out;
}

std::multiset<firing_key> heard_outcomes(const recording_listener& heard, const std::string& task) {
    std::multiset<firing_key> out;
    for (const auto& c : heard.outcomes())
        if (c.task == task) out.insert({c.scheduled_at, *c.outcome});
    return out;
}

std::size_t heard_count(const recording_listener& heard, const std::string& task, run_outcome outcome) {
    std::size_t n = 0;
    for (const auto& c : heard.outcomes()) n += c.task == task && c.outcome == outcome;
    return n;
}

}  // namespace

TEST_CASE("scheduler listener: every firing's outcome once, from the worker that ran it", "[scheduler][listener]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    auto heard = std::make_shared<recording_listener>();
    scheduler_options options;
    options.worker_threads = 4;
    options.listeners = {heard};
    scheduler s(locks, store, options);

    std::mutex bodies_mutex;
    std::map<timestamp, std::thread::id> body_thread;  // of "tick", by scheduled time
    s.add(make_task("tick", [&](task_context& ctx) {
        std::lock_guard lock(bodies_mutex);
        body_thread[ctx.scheduled_at()] = std::this_thread::get_id();
    }, fixed_rate(50ms), lock_at_most_for("PT10S")));
    // "slow" runs until the listener has heard its later firings skipped as still running.
    std::atomic<bool> release_slow{false};
    s.add(make_task("slow", [&](task_context&) {
        wait_for([&] { return release_slow.load(); }, 60s);
    }, fixed_rate(50ms), lock_at_most_for("PT2M")));
    // "busy" is held by another owner for the whole test: every firing is skipped_locked.
    auto elsewhere = locks.try_lock({"busy", 10min});
    REQUIRE(elsewhere);
    s.add(make_task("busy", [](task_context&) {}, fixed_rate(50ms), lock_at_most_for("PT10S")));

    s.start();
    REQUIRE(wait_for([&] { return heard_count(*heard, "slow", run_outcome::skipped_running) >= 3; }, 30s));
    release_slow = true;
    REQUIRE(wait_for([&] {
        return heard_count(*heard, "tick", run_outcome::succeeded) >= 5 &&
               heard_count(*heard, "busy", run_outcome::skipped_locked) >= 3 &&
               heard_count(*heard, "slow", run_outcome::succeeded) >= 1;
    }, 30s));
    s.stop(10s);

    for (const char* task : {"tick", "slow", "busy"}) {
        INFO(task);
        CHECK(heard_outcomes(*heard, task) == recorded(store, task));  // each run record's outcome, once
    }
    const auto test_thread = std::this_thread::get_id();
    std::size_t acquired_tick = 0;
    for (const auto& c : heard->calls()) {
        CHECK(c.thread != test_thread);  // a worker of the pool, never the caller of start()
        if (c.task != "tick") continue;
        CHECK(c.lock_name == "tick");
        if (c.hook == "acquired") ++acquired_tick;
        if (c.hook != "finished") continue;
        std::lock_guard lock(bodies_mutex);
        REQUIRE(body_thread.count(c.scheduled_at) == 1);
        CHECK(c.thread == body_thread.at(c.scheduled_at));  // the very worker that ran the firing
        CHECK(c.fencing_token);
    }
    CHECK(acquired_tick == heard_count(*heard, "tick", run_outcome::succeeded));
    // Every "busy" firing that reached the lock found it held elsewhere. On a loaded machine a
    // firing may also come while the previous one is still on its worker: skipped_running, which
    // never tries the lock (seen in a CI run).
    std::size_t busy_tried = 0;
    for (const auto& c : heard->calls()) {
        if (c.task != "busy") continue;
        INFO("busy: " << static_cast<int>(c.attempt));
        const bool still_running = c.attempt == lock_attempt::none && c.outcome == run_outcome::skipped_running;
        CHECK((c.attempt == lock_attempt::held_elsewhere || still_running));
        if (c.attempt == lock_attempt::held_elsewhere) ++busy_tried;
    }
    CHECK(busy_tried == heard_count(*heard, "busy", run_outcome::skipped_locked));
}

TEST_CASE("scheduler listener: an unavailable provider's firings are on_skipped(lock_error)", "[scheduler][listener]") {
    test::unavailable_provider down;
    memory_run_store store;
    auto heard = std::make_shared<recording_listener>();
    scheduler_options options;
    options.listeners = {heard};
    options.warn = [](const std::string&) {};
    scheduler s(down, store, options);
    s.add(make_task("job", [](task_context&) {}, fixed_rate(50ms), lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(wait_for([&] { return heard_count(*heard, "job", run_outcome::lock_error) >= 3; }, 30s));
    s.stop(10s);
    CHECK(heard_outcomes(*heard, "job") == recorded(store, "job"));
    for (const auto& c : heard->calls()) {
        CHECK(c.hook == "skipped");
        CHECK(c.attempt == lock_attempt::failed);
        CHECK(c.message.find("connection refused") != std::string::npos);
    }
}

TEST_CASE("scheduler listener: one that throws goes to warn, the firing and the next listener carry on",
          "[scheduler][listener]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    auto heard = std::make_shared<recording_listener>();
    std::mutex warned_mutex;
    std::vector<std::string> warned;
    scheduler_options options;
    options.listeners = {std::make_shared<test::throwing_listener>(), heard};
    options.warn = [&](const std::string& line) {
        std::lock_guard lock(warned_mutex);
        warned.push_back(line);
    };
    scheduler s(locks, store, options);
    s.add(make_task("job", [](task_context&) {}, cron("0 0 3 1 1 ?"), lock_at_most_for("PT10S")));
    s.start();
    const auto r = s.run_now("job");
    s.stop(10s);
    CHECK(r.outcome == run_outcome::succeeded);
    const auto calls = heard->calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].hook == "acquired");
    CHECK(calls[1].hook == "finished");
    CHECK(calls[1].task == "job");
    CHECK(calls[1].scheduled_at == r.scheduled_at);
    std::lock_guard lock(warned_mutex);
    REQUIRE(warned.size() == 2);
    CHECK(warned[0].find("executor listener threw in on_acquired of lock \"job\"") != std::string::npos);
    CHECK(warned[1].find("executor listener threw in on_finished") != std::string::npos);
    CHECK(locks.try_lock({"job", 1s}));
}
