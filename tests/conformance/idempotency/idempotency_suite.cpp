// Idempotency conformance: what every idempotency store (memory, SQLite, PostgreSQL, MySQL,
// Redis) does, one case per rule.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shedlock;
using namespace shedlock::conformance;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

namespace {

/// The backend (one per test program) and a store with an injected clock.
struct claims_fixture {
    claims_fixture() : backend(make_idempotency_backend()), store(backend->make_store(clock)) {}
    manual_clock clock;
    std::unique_ptr<idempotency_backend> backend;
    std::unique_ptr<idempotency_store> store;
};

bool listed(idempotency_store& store, const std::string& key) {
    const auto all = store.list();
    return std::any_of(all.begin(), all.end(), [&](const claim_record& r) { return r.key == key; });
}

}  // namespace

TEST_CASE("idempotency conformance: a new key is claimed, attempt 1, recorded running", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("new");
    const auto r = f.store->claim(key, 10min, 17);
    REQUIRE(r.status == claim_status::claimed);
    REQUIRE(r.claim);
    CHECK(r.claim->key == key);
    CHECK(r.claim->attempt == 1);
    CHECK_FALSE(r.claim->owner.empty());
    CHECK(r.claim->fencing_token == std::optional<std::int64_t>{17});
    CHECK(r.claim->claimed_at == f.clock.now());
    CHECK(r.claim->expires_at == f.clock.now() + 10min);
    CHECK(r.claim->previous_failure.empty());
    const auto stored = f.store->find(key);
    REQUIRE(stored);
    CHECK(stored->state == "running");
    CHECK(stored->owner == r.claim->owner);
    CHECK(stored->attempt == 1);
    CHECK(stored->fencing_token == std::optional<std::int64_t>{17});
    CHECK(stored->claimed_at == f.clock.now());
    CHECK(stored->expires_at == f.clock.now() + 10min);
    CHECK_FALSE(stored->finished_at);
}

TEST_CASE("idempotency conformance: a live claim is in_progress, a completed one already_done", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("live");
    const auto first = f.store->claim(key, 10min);
    REQUIRE(first.status == claim_status::claimed);
    f.clock.advance(5min);
    const auto second = f.store->claim(key, 10min);
    CHECK(second.status == claim_status::in_progress);
    CHECK_FALSE(second.claim);
    CHECK(second.record.owner == first.claim->owner);
    CHECK(second.record.claimed_at == first.claim->claimed_at);
    CHECK(second.record.expires_at == first.claim->expires_at);
    REQUIRE(f.store->complete(*first.claim, "ledger 42: 3 rows, total 'x\"y' €") == finish_status::finished);
    f.clock.advance(1h);  // done stays done, however long ago
    const auto third = f.store->claim(key, 10min);
    CHECK(third.status == claim_status::already_done);
    CHECK(third.record.state == "done");
    CHECK(third.record.owner == first.claim->owner);
    CHECK(third.record.result == "ledger 42: 3 rows, total 'x\"y' €");
    CHECK(third.record.finished_at == std::optional<timestamp>{first.claim->claimed_at + 5min});
    CHECK(third.record.attempt == 1);
}

TEST_CASE("idempotency conformance: an expired claim is taken over only at expires_at", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("expiry");
    const auto first = f.store->claim(key, 2s, 1);
    REQUIRE(first.status == claim_status::claimed);
    f.clock.advance(1999ms);
    CHECK(f.store->claim(key, 2s).status == claim_status::in_progress);
    f.clock.advance(1ms);
    const auto taken = f.store->claim(key, 2s, 2);
    REQUIRE(taken.status == claim_status::claimed);
    CHECK(taken.claim->attempt == 2);
    CHECK(taken.claim->owner != first.claim->owner);
    CHECK(taken.claim->fencing_token == std::optional<std::int64_t>{2});
    CHECK(taken.claim->previous_failure.empty());
    CHECK(f.store->claim(key, 2s).status == claim_status::in_progress);
}

TEST_CASE("idempotency conformance: a lost owner cannot complete or fail the new owner's claim", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("lost");
    const auto old_claim = f.store->claim(key, 1s);
    REQUIRE(old_claim.status == claim_status::claimed);
    f.clock.advance(1s);
    const auto new_claim = f.store->claim(key, 1min);
    REQUIRE(new_claim.status == claim_status::claimed);
    CHECK(f.store->complete(*old_claim.claim, "stale result") == finish_status::claim_lost);
    CHECK(f.store->fail(*old_claim.claim, "stale failure") == finish_status::claim_lost);
    auto stored = f.store->find(key);
    REQUIRE(stored);
    CHECK(stored->state == "running");
    CHECK(stored->owner == new_claim.claim->owner);
    CHECK(stored->result.empty());
    REQUIRE(f.store->complete(*new_claim.claim, "fresh") == finish_status::finished);
    // Repeatable (a retry after a lost answer is success), but done is final: nothing is
    // written again, and a done claim cannot be failed.
    CHECK(f.store->complete(*new_claim.claim, "twice") == finish_status::finished);
    CHECK(f.store->fail(*new_claim.claim, "after done") == finish_status::claim_lost);
    CHECK(f.store->find(key)->result == "fresh");
    CHECK(f.store->find(key)->state == "done");
}

TEST_CASE("idempotency conformance: an expired claim not taken over can still complete", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("late");
    const auto c = f.store->claim(key, 1s);
    f.clock.advance(5s);
    CHECK(f.store->complete(*c.claim, "late but alone") == finish_status::finished);
    CHECK(f.store->claim(key, 1s).status == claim_status::already_done);
}

TEST_CASE("idempotency conformance: a failed attempt is claimed again with its message", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("failed");
    const auto first = f.store->claim(key, 10min);
    REQUIRE(f.store->fail(*first.claim, "bank API: 503") == finish_status::finished);
    const auto failed = f.store->find(key);
    CHECK(failed->state == "failed");
    CHECK(failed->result == "bank API: 503");
    CHECK(failed->finished_at == std::optional<timestamp>{f.clock.now()});
    const auto second = f.store->claim(key, 10min);
    REQUIRE(second.status == claim_status::claimed);
    CHECK(second.claim->attempt == 2);
    CHECK(second.claim->previous_failure == "bank API: 503");
    CHECK_FALSE(f.store->find(key)->finished_at);
    REQUIRE(f.store->complete(*second.claim, "ok") == finish_status::finished);
    CHECK(f.store->find(key)->attempt == 2);
}

TEST_CASE("idempotency conformance: transition applies iff the state matches", "[idempotency_conformance]") {
    claims_fixture f;
    const auto key = unique_claim_key("state");
    CHECK_FALSE(f.store->transition(key, "INIT", "RUNNING"));  // no record yet
    CHECK_FALSE(f.store->find(key));
    CHECK(f.store->transition(key, "", "INIT"));
    CHECK_FALSE(f.store->transition(key, "", "INIT"));
    CHECK_FALSE(f.store->transition(key, "RUNNING", "DONE"));
    CHECK(f.store->transition(key, "INIT", "RUNNING"));
    CHECK_FALSE(f.store->transition(key, "INIT", "RUNNING"));
    CHECK_FALSE(f.store->transition(key, "running", "DONE"));  // states compare byte for byte
    CHECK(f.store->find(key)->state == "RUNNING");
    CHECK(f.store->claim(key, 1min).status == claim_status::in_progress);  // not a claim state
    CHECK_THROWS_WITH(f.store->transition(key, "RUNNING", "RUNNING"), Contains("RUNNING") && Contains("itself"));
}

TEST_CASE("idempotency conformance: fence accepts only tokens above every accepted one", "[idempotency_conformance]") {
    claims_fixture f;
    const auto resource = unique_claim_key("ledger");
    const auto other = unique_claim_key("ledger");
    CHECK(f.store->fence(resource, 5));
    CHECK_FALSE(f.store->fence(resource, 5));
    CHECK_FALSE(f.store->fence(resource, 4));
    CHECK_FALSE(f.store->fence(resource, -1));
    CHECK(f.store->fence(resource, 6));
    CHECK(f.store->fence(resource, 1'700'000'000'000'000));
    CHECK_FALSE(f.store->fence(resource, 1'699'999'999'999'999));
    CHECK(f.store->fence(other, 1));  // resources are independent
    CHECK_FALSE(listed(*f.store, resource));  // fences are not claims
    // A fence and a claim may share a name without touching each other.
    REQUIRE(f.store->claim(resource, 1min).status == claim_status::claimed);
    CHECK(f.store->fence(resource, 1'700'000'000'000'001));
}

TEST_CASE("idempotency conformance: keys compare byte for byte", "[idempotency_conformance]") {
    claims_fixture f;
    const auto base = unique_claim_key("Case");
    for (const auto& key : {base, base + " ", base + "x", std::string("case") + base.substr(4), base + "é", base + "e"}) {
        INFO(key);
        CHECK(f.store->claim(key, 1min).status == claim_status::claimed);
    }
    const auto long_key = base + std::string(255 - base.size() - 1, 'k') + "€";  // 255 characters, 3-byte last one
    REQUIRE(f.store->claim(long_key, 1min).status == claim_status::claimed);
    CHECK(f.store->find(long_key)->key == long_key);
}

TEST_CASE("idempotency conformance: bad input is refused naming the value, nothing written", "[idempotency_conformance]") {
    claims_fixture f;
    const auto before = f.store->list().size();
    CHECK_THROWS_AS(f.store->claim("", 1min), configuration_error);
    CHECK_THROWS_WITH(f.store->claim("", 1min), Contains("empty"));
    const std::string too_long = "settle:" + std::string(249, 'x');
    CHECK_THROWS_WITH(f.store->claim(too_long, 1min), Contains("settle:xxx") && Contains("256 characters") && Contains("255"));
    const auto key = unique_claim_key("bad");
    CHECK_THROWS_WITH(f.store->claim(key, -5s), Contains("-PT5S") && Contains(key) && Contains("positive"));
    CHECK_THROWS_WITH(f.store->claim(key, 0ms), Contains("positive"));
    CHECK_THROWS_WITH(f.store->claim(key + "\n", 1min), Contains("\\x0a") && Contains("control"));
    CHECK_THROWS_WITH(f.store->claim(std::string("bad\xff"), 1min), Contains("UTF-8"));
    CHECK_THROWS_WITH(f.store->fence("", 1), Contains("fence resource is empty"));
    CHECK_THROWS_WITH(f.store->transition(key, "", std::string(33, 's')), Contains("33 characters"));
    CHECK_THROWS_AS(f.store->purge(-1s), configuration_error);
    CHECK(f.store->list().size() == before);
    CHECK_FALSE(f.store->find(key));
    // An over-long result is refused before anything is written: the claim stays running.
    const auto c = f.store->claim(key, 1min);
    CHECK_THROWS_WITH(f.store->complete(*c.claim, std::string(max_claim_result_bytes + 1, 'r')), Contains("60001 bytes"));
    CHECK(f.store->find(key)->state == "running");
}

TEST_CASE("idempotency conformance: list sorted, reset frees a key, purge drops old finished ones", "[idempotency_conformance]") {
    claims_fixture f;
    const auto prefix = unique_claim_key("admin");
    const auto a = prefix + ":a", b = prefix + ":b", c = prefix + ":c", d = prefix + ":d";
    const auto ca = f.store->claim(a, 1min);
    REQUIRE(f.store->complete(*ca.claim, "A") == finish_status::finished);
    const auto cb = f.store->claim(b, 1min);
    REQUIRE(f.store->fail(*cb.claim, "B") == finish_status::finished);
    const auto cc = f.store->claim(c, 1h);  // still running when purged
    REQUIRE(f.store->transition(d, "", "INIT"));
    std::vector<std::string> keys;
    for (const auto& r : f.store->list())
        if (r.key.rfind(prefix, 0) == 0) keys.push_back(r.key);
    CHECK(keys == std::vector<std::string>{a, b, c, d});
    const auto all = f.store->list();
    CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.key < y.key; }));

    CHECK(f.store->reset(a));
    CHECK_FALSE(f.store->reset(a));
    const auto again = f.store->claim(a, 1min);
    REQUIRE(again.status == claim_status::claimed);
    CHECK(again.claim->attempt == 1);
    CHECK(f.store->complete(*ca.claim, "old owner after reset") == finish_status::claim_lost);
    REQUIRE(f.store->complete(*again.claim, "A2") == finish_status::finished);

    f.clock.advance(30min);
    CHECK(f.store->purge(1h) == 0);  // nothing that old
    f.clock.advance(2h);
    CHECK(f.store->purge(1h) >= 3);  // a, b, d (c is running, however old)
    CHECK_FALSE(f.store->find(a));
    CHECK_FALSE(f.store->find(b));
    CHECK_FALSE(f.store->find(d));
    CHECK(f.store->find(c));
    CHECK(f.store->claim(a, 1min).status == claim_status::claimed);  // a purged key can be claimed again
    (void)cc;
}
