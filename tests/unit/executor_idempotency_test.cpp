// The executor's business layer: lock -> claim -> body -> complete/fail -> unlock.
#include <shedlock/error.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include "flaky_finish_store.hpp"

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using Catch::Matchers::Matches;

namespace {

/// A memory lock provider and idempotency store on one manual clock.
struct claims_setup {
    manual_clock clock;
    providers::memory_lock_provider locks{clock};
    memory_idempotency_store claims{clock};
    locking_task_executor executor{locks};
    const lock_configuration config{"settle", 10min};

    execute_options with_key(const std::string& key, std::chrono::milliseconds claim_for = 0ms) {
        execute_options o;
        o.idempotency = idempotency_options{&claims, key, claim_for};
        return o;
    }
};

}  // namespace

TEST_CASE("executor with an idempotency key runs once, then skipped_done", "[executor][idempotency]") {
    claims_setup s;
    int runs = 0;
    const auto first = s.executor.execute(
        [&](task_context& ctx) {
            ++runs;
            REQUIRE(ctx.claim());
            CHECK(ctx.claim()->key == "settle:20240601");
            CHECK(ctx.claim()->attempt == 1);
            CHECK(ctx.claim()->fencing_token == ctx.fencing_token());
            CHECK(ctx.claim()->expires_at == s.clock.now() + 10min);  // claim_for defaults to lock_at_most_for
            CHECK_FALSE(s.locks.try_lock({"settle", 1s}));  // the lock is held around the claim
            ctx.set_result("3 rows");
        },
        s.config, s.with_key("settle:20240601"));
    CHECK(first.outcome == run_outcome::succeeded);
    CHECK(first.attempt == 1);
    const auto record = s.claims.find("settle:20240601");
    REQUIRE(record);
    CHECK(record->state == "done");
    CHECK(record->result == "3 rows");
    CHECK(record->fencing_token == first.fencing_token);

    const auto second = s.executor.execute([&](task_context&) { ++runs; }, s.config, s.with_key("settle:20240601"));
    CHECK(second.outcome == run_outcome::skipped_done);
    CHECK_THAT(second.message, Contains("settle:20240601") && Contains("already done"));
    CHECK(runs == 1);
    CHECK(s.locks.try_lock({"settle", 1s}));  // released after skipped_done too
    CHECK(parse_run_outcome("skipped_done") == run_outcome::skipped_done);
}

TEST_CASE("executor: a failed body fails the claim, the next run is attempt 2 and sees why", "[executor][idempotency]") {
    claims_setup s;
    const auto failed = s.executor.execute([](task_context&) { throw std::runtime_error("bank API 503"); }, s.config,
                                           s.with_key("k"));
    CHECK(failed.outcome == run_outcome::failed);
    CHECK(s.claims.find("k")->state == "failed");
    std::string previous;
    const auto retried = s.executor.execute(
        [&](task_context& ctx) {
            previous = ctx.claim()->previous_failure;
            CHECK(ctx.claim()->attempt == 2);
        },
        s.config, s.with_key("k"));
    CHECK(retried.outcome == run_outcome::succeeded);
    CHECK(retried.attempt == 2);
    CHECK(previous == "bank API 503");
}

TEST_CASE("executor: a live claim of another owner skips the body", "[executor][idempotency]") {
    claims_setup s;
    REQUIRE(s.claims.claim("k", 1h).status == claim_status::claimed);  // e.g. a run that outlived its lease
    bool ran = false;
    const auto r = s.executor.execute([&](task_context&) { ran = true; }, s.config, s.with_key("k"));
    CHECK(r.outcome == run_outcome::skipped_locked);
    CHECK_THAT(r.message, Contains("running"));
    CHECK_FALSE(ran);
}

TEST_CASE("executor: a claim taken over while the body ran is reported, never overwritten", "[executor][idempotency]") {
    claims_setup s;
    std::optional<idempotency_claim> usurper;
    const auto r = s.executor.execute(
        [&](task_context&) {
            s.clock.advance(2min);  // longer than claim_for: another owner takes the key over
            usurper = s.claims.claim("k", 1h).claim;
        },
        s.config, s.with_key("k", 1min));
    REQUIRE(usurper);
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK(r.claim_lost);
    CHECK_THAT(r.message, Contains("lost"));
    const auto record = s.claims.find("k");
    CHECK(record->state == "running");
    CHECK(record->owner == usurper->owner);
}

TEST_CASE("executor: no idempotency store means no claim", "[executor][idempotency]") {
    claims_setup s;
    const auto r = s.executor.execute([](task_context& ctx) { CHECK_FALSE(ctx.claim()); }, s.config);
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK(r.attempt == 0);
    CHECK(s.claims.list().empty());
}

TEST_CASE("idempotency store: a finish whose first attempt was applied is finished, not claim_lost",
          "[executor][idempotency]") {
    manual_clock clock;
    test::flaky_finish_store store(clock, test::flaky_finish_store::mode::applied_then_lost);
    const auto done = store.claim("settle:20240601", 10min);
    CHECK(store.complete(*done.claim, "3 rows") == finish_status::finished);
    CHECK(store.find("settle:20240601")->state == "done");
    const auto failed = store.claim("settle:20240602", 10min);
    CHECK(store.fail(*failed.claim, "bank API 503") == finish_status::finished);
    CHECK(store.find("settle:20240602")->state == "failed");
    // Negative control: a claim that really was taken over stays claim_lost.
    const auto lost = store.claim("settle:20240603", 1min);
    clock.advance(2min);
    REQUIRE(store.claim("settle:20240603", 1min).status == claim_status::claimed);
    CHECK(store.complete(*lost.claim) == finish_status::claim_lost);
    // ... and so does a done key completed by another claim, or a failed one asked to be done.
    CHECK(store.complete(*failed.claim) == finish_status::claim_lost);
}

TEST_CASE("executor: a completion that cannot be written is reported, not swallowed", "[executor][idempotency]") {
    manual_clock clock;
    providers::memory_lock_provider locks{clock};
    test::flaky_finish_store claims(clock, test::flaky_finish_store::mode::always_fails);
    locking_task_executor executor{locks};
    execute_options options;
    options.idempotency = idempotency_options{&claims, "settle:20240601", 5min};
    const auto r = executor.execute([](task_context& ctx) { ctx.set_result("3 rows"); }, {"settle", 10min}, options);
    CHECK(r.outcome == run_outcome::succeeded);  // the work was done
    CHECK(r.claim_unrecorded);
    CHECK_FALSE(r.claim_lost);
    CHECK_THAT(r.message, Contains("settle:20240601") && Contains("not marked done") && Contains("closed the connection") &&
                              Contains("may run again"));
    CHECK(claims.find("settle:20240601")->state == "running");

    const auto f = executor.execute([](task_context&) { throw std::runtime_error("bank API 503"); }, {"settle", 10min},
                                    [&] {
                                        auto o = options;
                                        o.idempotency->key = "settle:20240602";
                                        return o;
                                    }());
    CHECK(f.outcome == run_outcome::failed);
    CHECK(f.claim_unrecorded);
    CHECK_THAT(f.message, Contains("bank API 503") && Contains("not marked failed"));
}

TEST_CASE("executor: a claim reset while the body ran is reported without a guessed cause", "[executor][idempotency]") {
    claims_setup s;
    const auto r = s.executor.execute([&](task_context&) { CHECK(s.claims.reset("k")); }, s.config, s.with_key("k", 1min));
    CHECK(r.outcome == run_outcome::succeeded);
    CHECK(r.claim_lost);
    // Nothing expired and nothing took it over: the message lists the causes it cannot tell apart.
    CHECK_THAT(r.message, Contains("no longer this run's") && Contains("reset, deleted") && !Contains("expired after"));
    // Times in messages carry their zone (ISO-8601, UTC).
    CHECK_THAT(r.message, Matches(".*expired at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z.*"));
}

TEST_CASE("idempotency store: a blank key of spaces or invisible characters is refused naming it", "[executor][idempotency]") {
    claims_setup s;
    for (const std::string key : {" ", "   ", "\t ", "\u00a0", "\u200b", "\u2060", "\ufeff", "\u202e", " \u3000\u200d "}) {
        INFO(key);
        CHECK_THROWS_AS(s.claims.claim(key, 1min), configuration_error);
    }
    CHECK_THROWS_WITH(validate_claim_key("\u00a0 "), Contains("blank") && Contains("U+00A0 U+0020"));
    // Negative control: a key with visible characters among the spaces is a key.
    CHECK(s.claims.claim(" settle 1 ", 1min).status == claim_status::claimed);
    CHECK(s.claims.claim("\u00a0x", 1min).status == claim_status::claimed);
}
