// Redis-specific behaviour on the real test server: keys and TTLs as Redis sees them, fencing
// counter, Java ShedLock compatible keys, list_locks.
#include "redis_test_support.hpp"

#include <shedlock/lock_handle.hpp>

#include <catch2/catch.hpp>

#include <set>

#include <thread>

using namespace shedlock;
using namespace shedlock::providers;
using shedlock::test::raw_redis;
using std::chrono::milliseconds;

namespace {

redis_options options_with_prefix(const std::string& base) {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix(base);
    return options;
}

/// Waits until Redis has expired `key` (PTTL -2): the event a test needs, where a fixed sleep
/// past the TTL only hopes for it. The deadline is generous for the short leases used here.
bool key_expired(raw_redis& redis, const std::string& key) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (redis.integer({"PTTL", key}) != -2) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(milliseconds{5});
    }
    return true;
}

}  // namespace

TEST_CASE("redis: keys hold the owner token and the fencing counter", "[redis]") {
    auto options = options_with_prefix("keys");
    options.env = "prod";
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    auto held = provider->try_lock({"report", milliseconds{5000}});
    REQUIRE(held);
    const std::string key = options.prefix + ":prod:{report}";
    CHECK(redis.text({"GET", key}) == held->lease().owner);
    CHECK(redis.text({"GET", key + ":fence"}) == std::to_string(*held->fencing_token()));
    CHECK(redis.integer({"PTTL", key}) > 4500);
}

TEST_CASE("redis: an expired owner's unlock leaves the new owner's key and TTL intact", "[redis]") {
    auto options = options_with_prefix("expired-owner");
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    const std::string key = options.prefix + ":{job}";
    auto a = provider->try_lock({"job", milliseconds{150}});
    REQUIRE(a);
    REQUIRE(key_expired(redis, key));
    auto b = provider->try_lock({"job", milliseconds{10'000}});
    REQUIRE(b);
    a->unlock();
    CHECK(redis.text({"GET", key}) == b->lease().owner);
    CHECK(redis.integer({"PTTL", key}) > 9000);
    CHECK_FALSE(a->active());
}

TEST_CASE("redis: unlock with lock_at_least_for left sets PTTL to the remaining time", "[redis]") {
    auto options = options_with_prefix("at-least");
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    // The server's lease starts inside the try_lock call; PTTL is read after the unlock: the
    // remaining hold lies between 2000 ms less the time from the call's start to the reading, and
    // 2000 ms less the time from the call's end to the unlock (2 ms for Redis's rounding).
    const auto before_lock = std::chrono::steady_clock::now();
    auto held = provider->try_lock({"job", milliseconds{20'000}, milliseconds{2000}});
    REQUIRE(held);
    const auto after_lock = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(milliseconds{300});  // some of the hold passes: not synchronisation
    const auto before_unlock = std::chrono::steady_clock::now();
    held->unlock();
    const auto pttl = milliseconds{redis.integer({"PTTL", options.prefix + ":{job}"})};
    const auto after_read = std::chrono::steady_clock::now();
    const auto ms = [](auto d) { return std::chrono::duration_cast<milliseconds>(d); };
    CHECK(pttl <= milliseconds{2000} - ms(before_unlock - after_lock) + milliseconds{2});
    CHECK(pttl >= milliseconds{2000} - ms(after_read - before_lock) - milliseconds{2});
}

TEST_CASE("redis: the fencing counter survives unlock and expiry", "[redis]") {
    auto options = options_with_prefix("fence");
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    const std::string fence = options.prefix + ":{job}:fence";
    auto first = provider->try_lock({"job", milliseconds{150}});
    REQUIRE(first);
    first->unlock();  // deletes the lock key, never the fence key
    CHECK(redis.text({"GET", fence}) == std::to_string(*first->fencing_token()));
    auto second = provider->try_lock({"job", milliseconds{150}});
    REQUIRE(second);
    CHECK(*second->fencing_token() > *first->fencing_token());
    CHECK(key_expired(redis, options.prefix + ":{job}"));  // expires without unlock
    auto third = provider->try_lock({"job", milliseconds{150}});
    REQUIRE(third);
    CHECK(*third->fencing_token() > *second->fencing_token());
    CHECK(redis.integer({"TTL", fence}) == -1);  // the counter itself never expires
}

TEST_CASE("redis: list_locks reports owner, expiry and fencing token, free locks stay listed", "[redis]") {
    auto options = options_with_prefix("list");
    auto provider = make_redis_lock_provider(options);
    auto held = provider->try_lock({"held", milliseconds{30'000}});
    auto freed = provider->try_lock({"freed", milliseconds{30'000}});
    REQUIRE(held);
    REQUIRE(freed);
    freed->unlock();
    const auto records = inspect(*provider).list_locks();
    REQUIRE(records.size() == 2);
    for (const auto& r : records) {
        if (r.name == "held") {
            CHECK(r.locked_by == held->lease().owner);
            CHECK(r.lock_until > system_clock::instance().now() + milliseconds{29'000});
            CHECK(r.fencing_token == held->fencing_token());
        } else {
            CHECK(r.name == "freed");
            CHECK(r.locked_by.empty());
            CHECK(r.lock_until <= system_clock::instance().now() + milliseconds{1000});
            CHECK(r.fencing_token == freed->fencing_token());
        }
    }
}

TEST_CASE("redis: tokens never fall below the server clock in microseconds", "[redis]") {
    auto options = options_with_prefix("token-floor");
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    const auto before = inspect(*provider).server_time();
    auto held = provider->try_lock({"job", milliseconds{5000}});
    REQUIRE(held);
    REQUIRE(before);
    const std::int64_t before_us = before->time_since_epoch().count() * 1000;
    CHECK(*held->fencing_token() >= before_us);
    held->unlock();
    // A counter far ahead of the clock (tokens issued by a faster clock) still goes up by one.
    const std::int64_t ahead = before_us + 3'600'000'000LL;
    redis.text({"SET", options.prefix + ":{job}:fence", std::to_string(ahead)});
    auto next = provider->try_lock({"job", milliseconds{5000}});
    REQUIRE(next);
    CHECK(*next->fencing_token() == ahead + 1);
}

TEST_CASE("redis: java_compat lock \"x:fence\" and the fence key of lock \"x\" do not collide", "[redis]") {
    // Regression: the fence key of lock x was job-lock:<env>:x:fence, the lock key of "x:fence".
    auto options = test::redis_test_options();
    options.java_compat = true;
    options.env = test::unique_prefix("java-collide");
    auto provider = make_redis_lock_provider(options);
    auto x = provider->try_lock({"x", milliseconds{5000}});
    REQUIRE(x);
    x->unlock();
    auto x_fence = provider->try_lock({"x:fence", milliseconds{5000}});  // was held forever by x's counter
    REQUIRE(x_fence);
    auto x_again = provider->try_lock({"x", milliseconds{5000}});  // was WRONGTYPE-free only by luck
    REQUIRE(x_again);
    CHECK(*x_again->fencing_token() > *x->fencing_token());
    std::set<std::string> names;
    for (const auto& r : inspect(*provider).list_locks()) names.insert(r.name);
    CHECK(names == std::set<std::string>{"x", "x:fence"});
}

TEST_CASE("redis: env separates environments on one server", "[redis]") {
    auto prod = options_with_prefix("env");
    prod.env = "prod";
    auto staging = prod;
    staging.env = "staging";
    auto a = make_redis_lock_provider(prod);
    auto b = make_redis_lock_provider(staging);
    auto in_prod = a->try_lock({"job", milliseconds{5000}});
    auto in_staging = b->try_lock({"job", milliseconds{5000}});
    CHECK(in_prod);
    CHECK(in_staging);
    CHECK(inspect(*a).list_locks().size() == 1);
}

TEST_CASE("redis: java_compat uses Java ShedLock's job-lock:<env>:<name> keys", "[redis]") {
    auto options = test::redis_test_options();
    options.java_compat = true;
    raw_redis redis(options);
    SECTION("with the fence key") {
        options.env = test::unique_prefix("java-fenced");
        const std::string key = "job-lock:" + options.env + ":report";
        auto provider = make_redis_lock_provider(options);
        auto held = provider->try_lock({"report", milliseconds{5000}});
        REQUIRE(held);
        CHECK(redis.text({"GET", key}) == held->lease().owner);
        CHECK(redis.text({"GET", "{" + key + "}:fence"}) == std::to_string(*held->fencing_token()));
        CHECK(redis.text({"EXISTS", key + ":fence"}) == "0");  // that is lock "report:fence"'s key
        // A Java instance's SET NX on the same key fails while we hold it.
        CHECK(redis.text({"SET", key, "ADDED:2024-06-01T00:00:00Z@java-host", "NX", "PX", "5000"}) == "(nil)");
        held->unlock();
        CHECK(redis.text({"EXISTS", key}) == "0");
        CHECK(inspect(*provider).list_locks().size() == 1);
    }
    SECTION("without fencing") {
        options.env = test::unique_prefix("java-plain");
        const std::string key = "job-lock:" + options.env + ":report";
        options.fencing = false;
        auto provider = make_redis_lock_provider(options);
        CHECK_FALSE(provider->supports_fencing());
        auto held = provider->try_lock({"report", milliseconds{5000}});
        REQUIRE(held);
        CHECK_FALSE(held->fencing_token());
        CHECK(redis.text({"EXISTS", "{" + key + "}:fence"}) == "0");
        held->unlock();
        // A lock taken by a Java instance blocks us too.
        REQUIRE(redis.text({"SET", key, "ADDED:2024-06-01T00:00:00Z@java-host", "NX", "PX", "5000"}) == "OK");
        CHECK_FALSE(provider->try_lock({"report", milliseconds{5000}}));
    }
}
