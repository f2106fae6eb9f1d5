// idempotency_store::claim() when the backend's claim fails: the error it rethrows (with what
// became of the claim added to the message) keeps the backend's category and retry advice.
#include <shedlock/error.hpp>
#include <shedlock/memory_idempotency_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

namespace {

/// A memory idempotency store whose claim fails with `failure` (after nothing was written).
class failing_claim_store final : public idempotency_store {
public:
    failing_claim_store(const shedlock::clock& clock, storage_error failure)
        : idempotency_store(clock), inner_(clock), failure_(std::move(failure)) {}

private:
    claim_result do_claim(const std::string&, std::chrono::milliseconds, std::optional<std::int64_t>,
                          const std::string&) override {
        throw failure_;
    }
    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override {
        return state == claim_state::done ? inner_.complete(claim, result) : inner_.fail(claim, result);
    }
    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override {
        return inner_.transition(key, from, to);
    }
    bool do_fence(const std::string& resource, std::int64_t token) override { return inner_.fence(resource, token); }
    std::vector<claim_record> do_list(const std::optional<std::string>&) override { return inner_.list(); }
    bool do_reset(const std::string& key) override { return inner_.reset(key); }
    std::size_t do_purge(timestamp cutoff) override { return inner_.purge(clock().now() - cutoff); }

    memory_idempotency_store inner_;
    storage_error failure_;
};

/// The error claim() throws when the backend's claim throws `failure`.
storage_error claim_error(const storage_error& failure) {
    manual_clock clock;
    failing_claim_store store(clock, failure);
    try {
        (void)store.claim("settle:20240601", 1min);
    } catch (const storage_error& e) {
        return e;
    }
    FAIL("claim() did not throw");
    return failure;
}

}  // namespace

TEST_CASE("idempotency store: a failed claim keeps the backend's retry advice", "[idempotency]") {
    // Regression: claim() re-threw storage_error(category, message), which gave the category's
    // default advice: an `other` error in doubt (answer lost) became permanent.
    const auto in_doubt = claim_error(
        storage_error(storage_category::other, retry_advice::in_doubt, "statement timeout: the answer was lost"));
    CHECK(in_doubt.category() == storage_category::other);
    CHECK(in_doubt.advice() == retry_advice::in_doubt);
    CHECK_THAT(in_doubt.what(), Contains("the answer was lost") && Contains("not blocked by it"));

    // ... and a connect that failed before anything was sent stayed safe, not unavailable's in doubt.
    const auto safe =
        claim_error(storage_error(storage_category::unavailable, retry_advice::safe, "connection refused"));
    CHECK(safe.category() == storage_category::unavailable);
    CHECK(safe.advice() == retry_advice::safe);
}
