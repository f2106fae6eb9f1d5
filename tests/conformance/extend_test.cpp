// Conformance: extend rules.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <optional>

using namespace shedlock;
using namespace shedlock::conformance;
using std::chrono::milliseconds;

TEST_CASE("conformance: extend keeps the lock past the original lease", "[conformance][extend]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("extend"), f.lease(2)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    f.pass(f.lease(1));
    auto extended = held->extend(f.lease(3));
    REQUIRE(extended);
    CHECK_FALSE(held->active());
    f.pass(f.lease(2));  // past the original lock_until, within the extension
    CHECK_FALSE(f.provider().try_lock(config));
    CHECK(extended->fencing_token() == held->fencing_token());
}

TEST_CASE("conformance: extend multiple times", "[conformance][extend]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("extend-many"), f.lease(2)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    for (int i = 0; i < 4; ++i) {
        f.pass(f.lease(1));
        auto next = held->extend(f.lease(2));
        REQUIRE(next);
        held = std::move(next);
    }
    CHECK_FALSE(f.provider().try_lock(config));
}

TEST_CASE("conformance: extend on an unlocked handle is a lock_state_error", "[conformance][extend]") {
    fixture f;
    auto held = f.provider().try_lock({fixture::unique_name("extend-unlocked"), f.lease(2)});
    REQUIRE(held);
    held->unlock();
    CHECK_THROWS_AS((void)held->extend(f.lease(2)), lock_state_error);
}

TEST_CASE("conformance: extend on an expired lock is not extended", "[conformance][extend]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("extend-expired"), f.lease(1)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    f.pass(f.lease(1) + milliseconds{20});
    CHECK_FALSE(held->extend(f.lease(2)));
    CHECK(f.provider().try_lock(config));  // and nothing was extended
}

TEST_CASE("conformance: extend twice on one handle is a lock_state_error", "[conformance][extend]") {
    fixture f;
    auto held = f.provider().try_lock({fixture::unique_name("extend-twice"), f.lease(2)});
    REQUIRE(held);
    auto extended = held->extend(f.lease(2));
    REQUIRE(extended);
    CHECK_THROWS_AS((void)held->extend(f.lease(2)), lock_state_error);
    CHECK_THROWS_AS(held->unlock(), lock_state_error);
}

TEST_CASE("conformance: unlock after extend works", "[conformance][extend]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("extend-unlock"), f.lease(2)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    auto extended = held->extend(f.lease(3));
    REQUIRE(extended);
    extended->unlock();
    CHECK(f.provider().try_lock(config));
}

TEST_CASE("conformance: extend honours its own lock_at_least_for on unlock", "[conformance][extend]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("extend-at-least"), f.lease(2)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    auto extended = held->extend(f.lease(4), f.lease(2));
    REQUIRE(extended);
    extended->unlock();
    CHECK_FALSE(f.provider().try_lock(config));
    f.pass(f.lease(2) + milliseconds{20});
    CHECK(f.provider().try_lock(config));
}

TEST_CASE("conformance: the longest lease is stored, listed and extended", "[conformance][extend]") {
    // Heartbeat records (heartbeat_record.hpp) hold it: they must outlive every lock on every backend.
    fixture f;
    const lock_configuration config{fixture::unique_name("longest-lease"), max_lock_at_most_for};
    const auto listed_until = [&]() -> std::optional<timestamp> {
        for (const auto& r : f.inspector().list_locks())
            if (r.name == config.name()) return r.lock_until;
        return std::nullopt;
    };
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    const auto at_least = f.inspector().lock_time_now() + max_lock_at_most_for - std::chrono::minutes{1};
    CHECK(listed_until() > at_least);
    auto extended = held->extend(max_lock_at_most_for);
    REQUIRE(extended);
    CHECK(listed_until() > at_least);
    CHECK_FALSE(f.provider().try_lock(config));
    extended->unlock();
    CHECK(f.provider().try_lock(config));
}
