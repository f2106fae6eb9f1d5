// Conformance: owner check and fencing tokens.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::conformance;
using std::chrono::milliseconds;

namespace {

std::optional<lock_record> record_of(lock_provider& provider, const std::string& name) {
    for (auto& r : inspect(provider).list_locks())
        if (r.name == name) return r;
    return std::nullopt;
}

}  // namespace

TEST_CASE("conformance: an expired former owner cannot unlock or extend the new owner", "[conformance][owner]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("owner"), f.lease(2)};
    auto a = f.provider().try_lock(config);
    REQUIRE(a);
    f.pass(f.lease(2) + milliseconds{20});  // A's lease runs out while it still "works"
    auto b = f.provider().try_lock(config);
    REQUIRE(b);
    const auto before = record_of(f.provider(), config.name());
    REQUIRE(before);
    CHECK(before->locked_by == b->lease().owner);

    CHECK_FALSE(a->extend(f.lease(10)));  // A cannot extend B's lock
    const auto after = record_of(f.provider(), config.name());
    REQUIRE(after);
    CHECK(after->locked_by == b->lease().owner);
    CHECK(after->lock_until == before->lock_until);  // B's lease is exactly as it was
    CHECK_FALSE(f.provider().try_lock(config));
    CHECK(b->extend(f.lease(2)));  // and B still owns it
}

TEST_CASE("conformance: an expired former owner's unlock leaves the new owner's lock", "[conformance][owner]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("owner-unlock"), f.lease(2)};
    auto a = f.provider().try_lock(config);
    REQUIRE(a);
    f.pass(f.lease(2) + milliseconds{20});
    auto b = f.provider().try_lock(config);
    REQUIRE(b);
    a->unlock();                                 // the mis-delete the owner token prevents
    CHECK_FALSE(f.provider().try_lock(config));  // B still holds
    auto b_extended = b->extend(f.lease(2));     // and B still owns it
    CHECK(b_extended);
}

TEST_CASE("conformance: fencing tokens strictly increase across acquisitions, expiries and unlocks",
          "[conformance][fencing]") {
    fixture f;
    if (!current_backend().expects_fencing()) {
        auto held = f.provider().try_lock({fixture::unique_name("no-fencing"), f.lease(2)});
        REQUIRE(held);
        CHECK_FALSE(held->fencing_token());
        CHECK_FALSE(f.provider().supports_fencing());
        return;
    }
    CHECK(f.provider().supports_fencing());
    const lock_configuration config{fixture::unique_name("fencing"), f.lease(1)};
    std::int64_t last = 0;
    for (int round = 0; round < 6; ++round) {
        auto held = f.provider().try_lock(config);
        REQUIRE(held);
        REQUIRE(held->fencing_token());
        CHECK(*held->fencing_token() > last);
        last = *held->fencing_token();
        if (round % 2 == 0) held->unlock();
        else {
            f.pass(f.lease(1) + milliseconds{20});  // let it expire instead of unlocking
            (void)held->extend(f.lease(1));         // consumes the handle without unlocking
        }
    }
    const lock_configuration other{fixture::unique_name("fencing-other"), f.lease(1)};
    auto independent = f.provider().try_lock(other);
    REQUIRE(independent);
    REQUIRE(independent->fencing_token());
    if (current_backend().tokens_start_at_one())
        CHECK(*independent->fencing_token() == 1);  // a counter per lock name
}

TEST_CASE("conformance: unlock after a short extension still keeps the minimum hold", "[conformance]") {
    // Found by the model test: Redis's unlock only ever shortened the TTL, so an extension shorter
    // than the remaining lock_at_least_for let another instance in before locked_at + at_least.
    fixture f;
    const lock_configuration config{fixture::unique_name("short-extend"), f.lease(8), f.lease(6)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    auto extended = held->extend(f.lease(1));
    REQUIRE(extended);
    extended->unlock();
    f.pass(f.lease(2));
    CHECK_FALSE(f.provider().try_lock(config));  // at 2 of 6 steps of the minimum hold
}

TEST_CASE("conformance: a force-released lock stays free when its old holder unlocks", "[conformance]") {
    // Found by the model test: SQL and memory revived the lock until locked_at + at_least when
    // the old holder unlocked after an operator's release; Redis (key gone) left it free.
    fixture f;
    const lock_configuration config{fixture::unique_name("released"), f.lease(8), f.lease(6)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    try {
        REQUIRE(f.inspector().force_release(config.name()));
    } catch (const unsupported_operation_error&) {
        return;  // a backend that cannot list cannot force-release
    }
    held->unlock();
    CHECK(f.provider().try_lock(config));
}
