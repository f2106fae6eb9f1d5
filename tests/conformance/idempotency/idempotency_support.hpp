#pragma once
// Helpers of the idempotency suite that backends' own tests call too, header-only: a serial test
// program that restarts a server includes this without linking the suite (a unity build would
// otherwise pull every suite case in with them).

#include "idempotency_conformance.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace shedlock::conformance {

/// A key unique to this process and call, so tests never see each other's records.
inline std::string unique_claim_key(const std::string& base) {
    static std::atomic<int> counter{0};
    return base + ":" + std::to_string(::getpid()) + ":" + std::to_string(counter.fetch_add(1));
}

/// Claims, completions, failures, transitions and fences written before `restart` are all still
/// there after it (and the store keeps working). For each backend's serial server test.
inline void check_claims_survive_restart(idempotency_backend& backend, const std::function<void()>& restart) {
    using namespace std::chrono_literals;
    const auto& clock = system_clock::instance();
    const auto done_key = unique_claim_key("restart-done");
    const auto failed_key = unique_claim_key("restart-failed");
    const auto running_key = unique_claim_key("restart-running");
    const auto state_key = unique_claim_key("restart-state");
    const auto fence_key = unique_claim_key("restart-fence");
    {
        auto store = backend.make_store(clock);
        auto done = store->claim(done_key, 10min, 41);
        REQUIRE(done.status == claim_status::claimed);
        REQUIRE(store->complete(*done.claim, "settled 3 rows") == finish_status::finished);
        auto failed = store->claim(failed_key, 10min);
        REQUIRE(store->fail(*failed.claim, "timeout") == finish_status::finished);
        REQUIRE(store->claim(running_key, 10min).status == claim_status::claimed);
        REQUIRE(store->transition(state_key, "", "INIT"));
        REQUIRE(store->fence(fence_key, 7));
    }
    restart();
    auto store = backend.make_store(clock);
    // The first call after a restart may meet a connection the server dropped: the store
    // reconnects on the next call (storage_error once at most).
    for (int i = 0; i < 3; ++i) {
        try {
            (void)store->find(done_key);
            break;
        } catch (const storage_error&) {
        }
    }
    const auto done = store->claim(done_key, 10min);
    CHECK(done.status == claim_status::already_done);
    CHECK(done.record.result == "settled 3 rows");
    CHECK(done.record.fencing_token == std::optional<std::int64_t>{41});
    const auto again = store->claim(failed_key, 10min);
    REQUIRE(again.status == claim_status::claimed);
    CHECK(again.claim->attempt == 2);
    CHECK(again.claim->previous_failure == "timeout");
    CHECK(store->claim(running_key, 10min).status == claim_status::in_progress);
    CHECK_FALSE(store->transition(state_key, "", "INIT"));
    CHECK(store->transition(state_key, "INIT", "RUNNING"));
    CHECK_FALSE(store->fence(fence_key, 7));
    CHECK(store->fence(fence_key, 8));
}

/// complete() and fail() after the server closed every connection of the store while the work
/// ran (a killed backend, a restart, a network reset: the store's pooled connection is dead when
/// the work ends). Both must be recorded, on a new connection: a lost completion leaves the key
/// running, and the retry after claim_for does the work a second time. `kill_connections`
/// closes the store's connections on the server side (and fails the test if it found none).
inline void check_finish_after_connections_killed(idempotency_backend& backend,
                                                  const std::function<void()>& kill_connections) {
    using namespace std::chrono_literals;
    auto store = backend.make_store(system_clock::instance());
    const auto done_key = unique_claim_key("killed-done");
    const auto failed_key = unique_claim_key("killed-failed");
    const auto done = store->claim(done_key, 10min);
    REQUIRE(done.status == claim_status::claimed);
    kill_connections();  // while "the work" runs
    CHECK(store->complete(*done.claim, "3 rows") == finish_status::finished);
    const auto failed = store->claim(failed_key, 10min);
    REQUIRE(failed.status == claim_status::claimed);
    kill_connections();
    CHECK(store->fail(*failed.claim, "bank API 503") == finish_status::finished);

    const auto again = store->claim(done_key, 10min);
    CHECK(again.status == claim_status::already_done);
    CHECK(again.record.result == "3 rows");
    const auto retried = store->claim(failed_key, 10min);
    REQUIRE(retried.status == claim_status::claimed);
    CHECK(retried.claim->attempt == 2);
    CHECK(retried.claim->previous_failure == "bank API 503");
}

}  // namespace shedlock::conformance
