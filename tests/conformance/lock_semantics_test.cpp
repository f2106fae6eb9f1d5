// Conformance: acquire, refuse, independence, relock, expiry, lock_at_least_for.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <set>

using namespace shedlock;
using namespace shedlock::conformance;
using std::chrono::milliseconds;

TEST_CASE("conformance: acquire a free lock", "[conformance]") {
    fixture f;
    auto handle = f.provider().try_lock({fixture::unique_name("acquire"), f.lease(2)});
    REQUIRE(handle);
    CHECK(handle->active());
    CHECK(handle->lock_until() > f.provider().clock().now() - milliseconds{60'000});
}

TEST_CASE("conformance: refuse while held", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("refuse"), f.lease(2)};
    auto first = f.provider().try_lock(config);
    REQUIRE(first);
    CHECK_FALSE(f.provider().try_lock(config));
    CHECK_FALSE(f.provider().try_lock(config));  // a refused attempt changes nothing
}

TEST_CASE("conformance: independent names do not block each other", "[conformance]") {
    fixture f;
    auto a = f.provider().try_lock({fixture::unique_name("indep-a"), f.lease(2)});
    auto b = f.provider().try_lock({fixture::unique_name("indep-b"), f.lease(2)});
    CHECK(a);
    CHECK(b);
}

TEST_CASE("conformance: relock after unlock", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("relock"), f.lease(2)};
    auto first = f.provider().try_lock(config);
    REQUIRE(first);
    first->unlock();
    CHECK_FALSE(first->active());
    auto second = f.provider().try_lock(config);
    CHECK(second);
}

TEST_CASE("conformance: a destroyed handle releases its lock", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("raii"), f.lease(2)};
    { auto held = f.provider().try_lock(config); REQUIRE(held); }
    CHECK(f.provider().try_lock(config));
}

TEST_CASE("conformance: unlock twice is a lock_state_error", "[conformance]") {
    fixture f;
    auto handle = f.provider().try_lock({fixture::unique_name("unlock-twice"), f.lease(2)});
    REQUIRE(handle);
    handle->unlock();
    CHECK_THROWS_AS(handle->unlock(), lock_state_error);
}

TEST_CASE("conformance: expiry after lock_at_most_for", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("expiry"), f.lease(2)};
    auto first = f.provider().try_lock(config);
    REQUIRE(first);
    f.pass(f.lease(1));
    CHECK_FALSE(f.provider().try_lock(config));  // still within the lease
    f.pass(f.lease(1) + milliseconds{20});
    auto second = f.provider().try_lock(config);
    CHECK(second);  // the holder never unlocked; the lease bounded it
}

TEST_CASE("conformance: lock_at_least_for honoured on unlock", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("at-least"), f.lease(4), f.lease(2)};
    auto first = f.provider().try_lock(config);
    REQUIRE(first);
    first->unlock();                             // returns at once...
    CHECK_FALSE(f.provider().try_lock(config));  // ...but the lock stays held until locked_at + at_least
    f.pass(f.lease(1));
    CHECK_FALSE(f.provider().try_lock(config));
    f.pass(f.lease(1) + milliseconds{20});
    CHECK(f.provider().try_lock(config));
}

TEST_CASE("conformance: unlock after lock_at_least_for passed frees at once", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("at-least-passed"), f.lease(4), f.lease(1)};
    auto first = f.provider().try_lock(config);
    REQUIRE(first);
    f.pass(f.lease(1) + milliseconds{20});
    first->unlock();
    CHECK(f.provider().try_lock(config));
}

TEST_CASE("conformance: list_locks shows the record and keeps it after unlock", "[conformance]") {
    fixture f;
    const std::string name = fixture::unique_name("listed");
    auto held = f.provider().try_lock({name, f.lease(2)});
    REQUIRE(held);
    held->unlock();
    bool found = false;
    for (const auto& r : f.inspector().list_locks())
        if (r.name == name) found = true;
    CHECK(found);  // unlock never deletes the record: it stays for inspection
}

TEST_CASE("conformance: force_release frees a held lock, delete_records removes the record", "[conformance]") {
    fixture f;
    const lock_configuration config{fixture::unique_name("forced"), f.lease(4)};
    auto held = f.provider().try_lock(config);
    REQUIRE(held);
    CHECK(f.inspector().force_release(config.name()));
    auto next = f.provider().try_lock(config);
    REQUIRE(next);
    held->unlock();                              // the old holder's late unlock changes nothing
    CHECK_FALSE(f.provider().try_lock(config));  // next still holds
    next->unlock();
    CHECK_FALSE(f.inspector().force_release(config.name()));  // nothing live to release
    f.inspector().delete_records({config.name()});
    for (const auto& r : f.inspector().list_locks()) CHECK(r.name != config.name());
}

TEST_CASE("conformance: delete_expired_records deletes expired records only, never a held one", "[conformance]") {
    // The scheduler's sweep of rendered lock names (`tpl-{datetime}`) relies on this: one
    // conditional statement per name, so a lock acquired between its listing and the delete stays.
    fixture f;
    const std::string held_name = fixture::unique_name("exp-held"), expired_name = fixture::unique_name("exp-gone"),
                      absent_name = fixture::unique_name("exp-absent");
    auto held = f.provider().try_lock({held_name, f.lease(8)});
    REQUIRE(held);
    auto expired = f.provider().try_lock({expired_name, f.lease(1)});
    REQUIRE(expired);
    expired->unlock();
    f.pass(f.lease(2));
    const auto now = f.inspector().lock_time_now();
    if (!current_backend().deletes_expired_records()) {
        CHECK_THROWS_AS(f.inspector().delete_expired_records({expired_name}, now), unsupported_operation_error);
        return;
    }
    CHECK(f.inspector().delete_expired_records({held_name, expired_name, absent_name}, now) == 1);
    std::set<std::string> left;
    for (const auto& r : f.inspector().list_locks()) left.insert(r.name);
    CHECK(left.count(held_name) == 1);
    CHECK(left.count(expired_name) == 0);
    // A cut-off before the record expired keeps it.
    auto again = f.provider().try_lock({expired_name, f.lease(1)});
    REQUIRE(again);
    again->unlock();
    const auto before_expiry = f.inspector().lock_time_now() - std::chrono::hours{1};
    f.pass(f.lease(2));
    CHECK(f.inspector().delete_expired_records({expired_name}, before_expiry) == 0);
    CHECK(f.provider().try_lock({held_name, f.lease(8)}).has_value() == false);  // still held
}
