// What a scheduler says about a lock backend that fails its firings (backend_failure_log): once
// when the failures start, a reminder per period while they go on, once when a firing gets an
// answer again. Regression: a daemon whose every firing failed printed nothing at info level.
#include "backend_failure_log.hpp"
#include "unavailable_provider.hpp"
#include "wait_for.hpp"
#include "warning_log.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>


using namespace shedlock;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

TEST_CASE("backend failure log: the first failure, one reminder per period, the recovery", "[scheduler]") {
    detail::backend_failure_log log(5min);
    const auto t0 = detail::backend_failure_log::clock::time_point{} + 1h;
    const auto first = log.note("job", run_outcome::lock_error, "connection refused", t0);
    REQUIRE(first);
    CHECK_THAT(*first, Contains("task \"job\": the lock backend failed, the task did not run: connection refused") &&
                           Contains("told at most every PT5M"));
    CHECK_FALSE(log.note("job", run_outcome::lock_error, "connection refused", t0 + 1s));
    CHECK_FALSE(log.note("job", run_outcome::skipped_running, "still running", t0 + 2s));  // never asked the backend
    CHECK_FALSE(log.note("job", run_outcome::lock_error, "refused", t0 + 4min + 59s));
    const auto reminder = log.note("job", run_outcome::lock_error, "timed out", t0 + 5min);
    REQUIRE(reminder);
    CHECK_THAT(*reminder, Contains("still failing on the lock backend: 4 firings in a row over PT5M; the last: timed out"));
    CHECK_FALSE(log.note("job", run_outcome::lock_error, "timed out", t0 + 9min));
    const auto back = log.note("job", run_outcome::skipped_locked, "held elsewhere", t0 + 10min);
    REQUIRE(back);
    CHECK_THAT(*back, Contains("task \"job\": the lock backend answers again, after 5 firings failed over PT10M"));
    CHECK_FALSE(log.note("job", run_outcome::succeeded, "", t0 + 11min));
    // The recovery was told at 10 min: a new spell within 5 min of it waits for its turn.
    CHECK_FALSE(log.note("job", run_outcome::lock_error, "refused", t0 + 12min));
    const auto later = log.note("job", run_outcome::lock_error, "refused", t0 + 15min);
    REQUIRE(later);
    CHECK_THAT(*later, Contains("the lock backend failed, the task did not run: refused (2 firings in a row over PT3M)"));
}

TEST_CASE("backend failure log: a backend failing on and off is not a warning per firing", "[scheduler]") {
    // Regression (adversarial pass 32): every recovery reset the count, so a backend failing every
    // other firing got a failure and a recovery warning per firing.
    detail::backend_failure_log log(5min);
    const auto t0 = detail::backend_failure_log::clock::time_point{} + 1h;
    int told = 0;
    for (int second = 0; second < 600; ++second) {
        const auto outcome = second % 2 == 0 ? run_outcome::lock_error : run_outcome::skipped_locked;
        if (log.note("flaky", outcome, "LOADING", t0 + std::chrono::seconds{second})) ++told;
    }
    CHECK(told == 4);  // at 0 s the failure and at 1 s its recovery; at 302 s and 303 s again
    const auto summary = log.note("flaky", run_outcome::lock_error, "LOADING", t0 + 10min + 5s);
    REQUIRE(summary);
    CHECK_THAT(*summary, Contains("before this, 148 firings failed in short spells since the last warning"));
}

TEST_CASE("scheduler: a lock backend that fails every firing is told once, not per firing", "[scheduler]") {
    test::unavailable_provider down;
    memory_run_store store;
    test::warning_log warnings;
    scheduler_options options;
    options.warn = warnings.sink();
    scheduler s(down, store, options);
    s.add(make_task("job", [](task_context&) {}, fixed_rate(50ms), lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(test::wait_for([&] { return store.last_runs("job", 10).size() >= 5; }, 30s));
    s.stop(10s);
    INFO(warnings.size() << " warning(s)");
    CHECK(warnings.count("task \"job\": the lock backend failed, the task did not run: connection refused") == 1);
}
