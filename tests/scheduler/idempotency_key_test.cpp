// The scheduler's idempotency keys: rendered per firing like lock names, claimed after the lock,
// a done key recorded as skipped_done; checked at start().
#include <shedlock/error.hpp>
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include "flaky_finish_store.hpp"

#include <catch2/catch.hpp>

#include <mutex>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

TEST_CASE("scheduler: an idempotency_key runs the body once per rendered key", "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    memory_idempotency_store claims;
    scheduler_options options;
    options.claims = &claims;
    scheduler s(locks, store, options);
    int runs = 0;
    std::string key_seen;
    s.add(make_task("settle", [&](task_context& ctx) {
        ++runs;
        key_seen = ctx.claim() ? ctx.claim()->key : "";
    }, cron("0 0 2 * * ?", "UTC"), lock_at_most_for("PT10M"), idempotency_key("settle:{date}")));
    s.start();
    const auto first = s.run_now("settle");
    const auto second = s.run_now("settle");  // a manual re-run of the same day
    s.stop(1s);
    CHECK(first.outcome == run_outcome::succeeded);
    CHECK(second.outcome == run_outcome::skipped_done);
    CHECK_THAT(second.message, Contains("settle:"));
    CHECK(runs == 1);
    REQUIRE(key_seen.size() == std::string("settle:20240601").size());
    CHECK(key_seen.rfind("settle:20", 0) == 0);
    CHECK(claims.find(key_seen)->state == "done");
    CHECK(store.last_runs("settle", 10).front().outcome == run_outcome::skipped_done);
}

TEST_CASE("scheduler: an idempotency_key without a claims store fails start()", "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    s.add(make_task("settle", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT10M"),
                    idempotency_key("settle:{date}")));
    CHECK_THROWS_WITH(s.start(), Contains("settle") && Contains("claims store"));
}

TEST_CASE("scheduler: a bad idempotency_key template fails start() naming it", "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    memory_idempotency_store claims;
    scheduler_options options;
    options.claims = &claims;
    scheduler s(locks, store, options);
    s.add(make_task("a", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT10M"), idempotency_key("x:{nope}")));
    s.add(make_task("b", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT10M"),
                    idempotency_key(std::string(300, 'k'))));
    CHECK_THROWS_WITH(s.start(), Contains("nope") && Contains("300 characters"));
}

TEST_CASE("scheduler: a completion that cannot be written is warned about and kept in the run record",
          "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    test::flaky_finish_store claims(system_clock::instance(), test::flaky_finish_store::mode::always_fails);
    std::mutex mutex;
    std::vector<std::string> warnings;
    scheduler_options options;
    options.claims = &claims;
    options.warn = [&](const std::string& w) {
        std::lock_guard lock(mutex);
        warnings.push_back(w);
    };
    scheduler s(locks, store, options);
    s.add(make_task("settle", [](task_context&) {}, cron("0 0 2 * * ?", "UTC"), lock_at_most_for("PT10M"),
                    idempotency_key("settle:{date}")));
    s.start();
    const auto r = s.run_now("settle");
    s.stop(1s);
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK_THAT(r.message, Contains("not marked done") && Contains("closed the connection"));
    CHECK_THAT(store.last_runs("settle", 1).front().message, Contains("not marked done"));
    std::lock_guard lock(mutex);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings.front(), Contains("settle") && Contains("not marked done") && Contains("may run again"));
}

TEST_CASE("scheduler: a claim reset while its task ran is warned about as well as recorded", "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    memory_idempotency_store claims;
    std::mutex mutex;
    std::vector<std::string> warnings;
    scheduler_options options;
    options.claims = &claims;
    options.warn = [&](const std::string& w) {
        std::lock_guard lock(mutex);
        warnings.push_back(w);
    };
    scheduler s(locks, store, options);
    // An operator resets the key while the work runs: the run is not recorded with it.
    s.add(make_task("settle", [&](task_context& ctx) { CHECK(claims.reset(ctx.claim()->key)); }, cron("0 0 2 * * ?", "UTC"),
                    lock_at_most_for("PT10M"), idempotency_key("settle:{date}")));
    s.start();
    const auto r = s.run_now("settle");
    s.stop(1s);
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK_THAT(r.message, Contains("no longer this run's"));
    std::lock_guard lock(mutex);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings.front(), Contains("settle") && Contains("no longer this run's") && Contains("may run again"));
}

TEST_CASE("scheduler: claim_for without an idempotency_key fails start() naming it", "[scheduler][idempotency]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    memory_idempotency_store claims;
    scheduler_options options;
    options.claims = &claims;
    scheduler s(locks, store, options);
    // A key forgotten (or a config file's key left out) must not quietly turn idempotency off.
    s.add(make_task("settle", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT10M"), claim_for(1h)));
    CHECK_THROWS_WITH(s.start(), Contains("settle") && Contains("claim_for") && Contains("idempotency_key"));
}
