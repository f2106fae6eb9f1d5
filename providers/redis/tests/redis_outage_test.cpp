// Outages of the shared test server: stopping and restarting the real redis-server, an OOM reply,
// and SCRIPT FLUSH (which empties every client's script cache). These disturb every other test on
// the server, so this program runs alone (RUN_SERIAL).
#include "redis_test_support.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_handle.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <thread>

using namespace shedlock;
using namespace shedlock::providers;
using shedlock::test::raw_redis;
using std::chrono::milliseconds;

namespace {

void server_script(const std::string& command) {
    const std::string line = "'" + test::required_env("SHEDLOCK_TEST_REDIS_SCRIPT") + "' " + command + " '" +
                             test::required_env("SHEDLOCK_TEST_REDIS_DIR") + "' >/dev/null";
    REQUIRE(std::system(line.c_str()) == 0);
}

/// Restarts the primary even when an assertion in between fails.
struct halted_server {
    halted_server() { server_script("halt"); }
    ~halted_server() {
        if (!resumed) server_script("resume");
    }
    void resume() {
        server_script("resume");
        resumed = true;
    }
    bool resumed = false;
};

}  // namespace

TEST_CASE("redis outage: storage_error while the server is down, recovery by itself", "[redis][outage]") {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("restart");
    // Far beyond any stall of a loaded machine: a call that waited for it is told apart from one
    // that was refused (or failed within the backoff) without a speed bound.
    options.connect_timeout = milliseconds{60'000};
    auto provider = make_redis_lock_provider(options);
    REQUIRE(provider->try_lock({"before", milliseconds{60'000}}));  // pooled connections now exist

    halted_server server;
    for (int i = 0; i < 20; ++i) {
        const auto start = std::chrono::steady_clock::now();
        try {
            (void)provider->try_lock({"during", milliseconds{60'000}});
            FAIL("try_lock succeeded while redis-server was stopped");
        } catch (const storage_error& e) {
            CHECK(e.category() == storage_category::unavailable);
            CHECK(std::string(e.what()).find(*options.password) == std::string::npos);
        }
        // Refused or within the backoff: no waiting for the connect_timeout (a generous bound).
        CHECK(std::chrono::steady_clock::now() - start < milliseconds{30'000});
        std::this_thread::sleep_for(milliseconds{20});  // pacing the calls, not synchronisation
    }
    server.resume();

    // No new provider, no manual reconnect: the pool replaces its dead connections. Calls may
    // still fail fast until the reconnect backoff (250 ms) of the last failed connect has passed.
    // The deadline is generous: the property is recovery by itself, not its speed (reported).
    const auto resumed = std::chrono::steady_clock::now();
    const auto deadline = resumed + milliseconds{20'000};
    std::optional<lock_handle> held;
    int failures = 0;
    while (!held && std::chrono::steady_clock::now() < deadline) {
        try {
            held = provider->try_lock({"after", milliseconds{60'000}});
        } catch (const storage_error&) {
            ++failures;
            std::this_thread::sleep_for(milliseconds{50});
        }
    }
    const auto recovery = std::chrono::steady_clock::now() - resumed;
    INFO("failed calls after the restart: " << failures << ", recovered after "
         << std::chrono::duration_cast<milliseconds>(recovery).count() << " ms");
    REQUIRE(held);
    held->unlock();  // scripts were reloaded on the fresh server (its script cache was empty)
    CHECK(provider->try_lock({"after", milliseconds{60'000}}));
}

TEST_CASE("redis outage: an OOM reply is an unavailable error naming maxmemory", "[redis][outage]") {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("oom");
    raw_redis redis(options);
    auto provider = make_redis_lock_provider(options);
    REQUIRE(provider->try_lock({"warm-up", milliseconds{60'000}}));  // scripts loaded before the limit
    REQUIRE(redis.text({"CONFIG", "SET", "maxmemory", "1"}) == "OK");
    std::optional<storage_error> failure;
    try {
        (void)provider->try_lock({"job", milliseconds{60'000}});
    } catch (const storage_error& e) {
        failure = e;
    }
    redis.text({"CONFIG", "SET", "maxmemory", "0"});
    REQUIRE(failure);
    CHECK(failure->category() == storage_category::unavailable);
    CHECK(std::string(failure->what()).find("OOM") != std::string::npos);
    CHECK(std::string(failure->what()).find("maxmemory") != std::string::npos);
    CHECK(provider->try_lock({"job", milliseconds{60'000}}));
}

TEST_CASE("redis: NOSCRIPT after SCRIPT FLUSH mid-run reloads the scripts", "[redis]") {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("noscript");
    auto provider = make_redis_lock_provider(options);
    raw_redis redis(options);
    auto first = provider->try_lock({"job", milliseconds{5000}});
    REQUIRE(first);
    REQUIRE(redis.text({"SCRIPT", "FLUSH"}) == "OK");
    first->unlock();  // unlock script: NOSCRIPT -> SCRIPT LOAD -> EVALSHA again
    CHECK(redis.text({"EXISTS", options.prefix + ":{job}"}) == "0");
    REQUIRE(redis.text({"SCRIPT", "FLUSH"}) == "OK");
    auto second = provider->try_lock({"job", milliseconds{5000}});  // acquire script reloaded too
    REQUIRE(second);
    CHECK(*second->fencing_token() > *first->fencing_token());
    REQUIRE(redis.text({"SCRIPT", "FLUSH"}) == "OK");
    CHECK(second->extend(milliseconds{5000}));
}

TEST_CASE("redis outage: fencing tokens keep increasing across a restart without persistence", "[redis][outage]") {
    // Regression: the counter key died with the restart (--save '' --appendonly no) and tokens
    // started again at 1, so the new holder's fenced writes were rejected and an old holder's
    // could be accepted.
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("token-restart");
    auto provider = make_redis_lock_provider(options);
    std::int64_t last = 0;
    for (int i = 0; i < 3; ++i) {
        auto held = provider->try_lock({"job", milliseconds{60'000}});
        REQUIRE(held);
        CHECK(*held->fencing_token() > last);
        last = *held->fencing_token();
        held->unlock();
    }
    {
        halted_server server;
        server.resume();  // the server comes back empty: lock and counter keys are gone
    }
    raw_redis redis(options);
    REQUIRE(redis.text({"EXISTS", options.prefix + ":{job}:fence"}) == "0");
    std::optional<lock_handle> after;
    for (int attempt = 0; attempt < 50 && !after; ++attempt) {  // the pool reconnects after its backoff
        try {
            after = provider->try_lock({"job", milliseconds{60'000}});
        } catch (const storage_error&) {
            std::this_thread::sleep_for(milliseconds{100});
        }
    }
    REQUIRE(after);
    CHECK(*after->fencing_token() > last);
}

TEST_CASE("redis outage: a holder's unlock after a restart does not fail", "[redis][outage]") {
    // The pooled connection idled through the restart: the owner-checked unlock is retried once on
    // a new connection instead of failing (the lock itself died with the unpersisted server).
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("restart-unlock");
    auto provider = make_redis_lock_provider(options);
    auto held = provider->try_lock({"held", milliseconds{60'000}});
    REQUIRE(held);
    {
        halted_server server;
        server.resume();
    }
    CHECK_NOTHROW(held->unlock());
    CHECK(provider->try_lock({"held", milliseconds{60'000}}));
}
