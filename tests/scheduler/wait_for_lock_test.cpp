// The task option wait_for_lock: a firing waits for a lock held elsewhere, never past the task's
// next firing, and stop() ends the wait.
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <atomic>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

/// True while a firing of `task` is in flight on `s` (dispatched, lock not yet given up).
bool firing_in_flight(const scheduler& s, const std::string& task) {
    for (const auto& t : s.task_statuses())
        if (t.name == task) return t.running;
    return false;
}

std::size_t count_outcome(memory_run_store& store, const std::string& task, run_outcome outcome) {
    std::size_t n = 0;
    for (const auto& r : store.last_runs(task, 1000)) n += r.outcome == outcome;
    return n;
}

/// A provider whose every lock is held elsewhere; counts the attempts.
class always_held_provider final : public lock_provider {
public:
    bool supports_fencing() const override { return false; }
    int attempts() const { return attempts_.load(); }

private:
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override {
        ++attempts_;
        return std::nullopt;
    }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }
    std::atomic<int> attempts_{0};
};

/// A scheduler on a memory provider whose lock `name` another holder has for `held_for`.
struct held_lock_scheduler {
    held_lock_scheduler(const std::string& name, std::chrono::milliseconds held_for)
        : holder(locks.try_lock(lock_configuration(name, held_for))) {
        REQUIRE(holder);
    }
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::optional<lock_handle> holder;
    scheduler s{locks, store};

    /// Adds the task `name` (lock of the same name) with `wait_for_lock(wait)` and starts.
    void start(const std::string& name, trigger t, std::chrono::milliseconds wait,
               task_body body = [](task_context&) {}) {
        s.add(make_task(name, std::move(body), t, lock_at_most_for("PT1M"), wait_for_lock(wait)));
        s.start();
    }
};

}  // namespace

TEST_CASE("scheduler: a firing with wait_for_lock runs once the holder releases", "[scheduler][wait]") {
    held_lock_scheduler held("waited", 60s);
    auto& s = held.s;
    auto& store = held.store;
    std::atomic<int> runs{0};
    held.start("waited", fixed_rate(1h), 30s, [&](task_context&) { ++runs; });
    // The firing is in flight and has not run: it is waiting (without the option it would have
    // been recorded as skipped_locked at once).
    REQUIRE(wait_for([&] { return firing_in_flight(s, "waited"); }, 10s));
    CHECK(runs.load() == 0);
    held.holder->unlock();
    REQUIRE(wait_for([&] { return runs.load() == 1; }, 10s));  // generous: the wait polls every 20-100 ms
    s.stop(5s);
    CHECK(count_outcome(store, "waited", run_outcome::succeeded) == 1);
    CHECK(count_outcome(store, "waited", run_outcome::skipped_locked) == 0);
}

TEST_CASE("scheduler: a wait never runs into the task's next firing", "[scheduler][wait]") {
    held_lock_scheduler held("overlapping", 120s);
    auto& s = held.s;
    auto& store = held.store;
    held.start("overlapping", fixed_rate(300ms), 60s);
    // Had each firing waited its 60 s, the firings after the first would all be skipped_running
    // and no skipped_locked would be recorded for a minute.
    REQUIRE(wait_for([&] { return count_outcome(store, "overlapping", run_outcome::skipped_locked) >= 3; }, 20s));
    s.stop(5s);
    for (const auto& r : store.last_runs("overlapping", 1000))
        if (r.outcome == run_outcome::skipped_locked) CHECK(r.finished_at - r.scheduled_at < 60s);
}

TEST_CASE("scheduler: stop() ends a firing's wait for its lock", "[scheduler][wait]") {
    always_held_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    s.add(make_task("stopped-wait", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT1M"), wait_for_lock(90s)));
    s.start();
    // The firing is waiting once it has been refused twice (a firing in flight may not have made
    // its first attempt yet: stopped then, it records nothing).
    REQUIRE(wait_for([&] { return locks.attempts() >= 2; }, 10s));
    s.stop(30s);
    const auto records = store.last_runs("stopped-wait", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::skipped_locked);
    CHECK(records[0].finished_at - records[0].started_at < 90s);  // ended by stop(), not by the wait running out
}

TEST_CASE("scheduler: a negative wait_for_lock is refused at start()", "[scheduler][wait]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    s.add(make_task("negative-wait", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT1M"),
                    wait_for_lock(-1s)));
    CHECK_THROWS_WITH(s.start(), Catch::Matchers::Contains("wait_for_lock") && Catch::Matchers::Contains("negative"));
}
