// Redis failures that must read clearly: foreign keys, credentials, unreachable or silent servers,
// a read-only replica, and URI options. No message may contain a password.
#include "redis_test_support.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_handle.hpp>

#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

using namespace shedlock;
using namespace shedlock::providers;
using shedlock::test::raw_redis;
using std::chrono::milliseconds;

namespace {

/// The storage_error a first try_lock throws (fails the test if it throws nothing).
storage_error failure_of(const redis_options& options) {
    auto provider = make_redis_lock_provider(options);
    try {
        (void)provider->try_lock({"job", milliseconds{1000}});
    } catch (const storage_error& e) {
        return e;
    }
    FAIL("try_lock did not throw storage_error");
    throw;  // unreachable
}

bool mentions(const std::exception& e, const std::string& text) {
    return std::string(e.what()).find(text) != std::string::npos;
}

/// A loopback TCP socket that listens but never answers (kernel completes the handshake).
struct silent_listener {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);  // new_connections() must not block
    std::uint16_t port = 0;
    silent_listener() {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        REQUIRE(::listen(fd, 16) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
        port = ntohs(addr.sin_port);
    }
    ~silent_listener() {
        for (int c : accepted) ::close(c);
        ::close(fd);
    }
    /// How many connections arrived since the last call (accepted and held open, unanswered).
    int new_connections() {
        int n = 0;
        for (int c; (c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ++n) accepted.push_back(c);
        return n;
    }
    std::vector<int> accepted;
};

}  // namespace

TEST_CASE("redis: a non-string lock key is a WRONGTYPE invalid_data error", "[redis][errors]") {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("wrongtype");
    raw_redis redis(options);
    redis.text({"HSET", options.prefix + ":{job}", "field", "value"});
    const auto e = failure_of(options);
    CHECK(e.category() == storage_category::invalid_data);
    CHECK(mentions(e, "WRONGTYPE"));
    CHECK(mentions(e, "prefix"));
}

TEST_CASE("redis: a non-counter fence key fails the acquire and leaves no lock behind", "[redis][errors]") {
    auto options = test::redis_test_options();
    options.prefix = test::unique_prefix("wrongfence");
    raw_redis redis(options);
    redis.text({"LPUSH", options.prefix + ":{job}:fence", "x"});
    const auto e = failure_of(options);
    CHECK(e.category() == storage_category::invalid_data);
    CHECK(redis.text({"EXISTS", options.prefix + ":{job}"}) == "0");
}

TEST_CASE("redis: credentials errors are access_denied and never show the password", "[redis][errors]") {
    auto options = test::redis_test_options();
    SECTION("wrong password") {
        options.password = "not-the-pw-9f3a";
        const auto e = failure_of(options);
        CHECK(e.category() == storage_category::access_denied);
        CHECK(mentions(e, "WRONGPASS"));
        CHECK_FALSE(mentions(e, "not-the-pw-9f3a"));
    }
    SECTION("no password") {
        options.password.reset();
        const auto e = failure_of(options);
        CHECK(e.category() == storage_category::access_denied);
        CHECK(mentions(e, "NOAUTH"));
    }
    SECTION("ACL user with a wrong password") {
        options = test::redis_test_options("SHEDLOCK_TEST_REDIS_ACL_URI");
        options.password = "acl-wrong-pw-77";
        const auto e = failure_of(options);
        CHECK(e.category() == storage_category::access_denied);
        CHECK_FALSE(mentions(e, "acl-wrong-pw-77"));
    }
    SECTION("ACL user without the scripting permission") {
        options = test::redis_test_options("SHEDLOCK_TEST_REDIS_READER_URI");
        const auto e = failure_of(options);
        CHECK(e.category() == storage_category::access_denied);
        CHECK(mentions(e, "NOPERM"));
        // The refused call is a write (a script that sets the lock): the hint names write rights.
        CHECK(mentions(e, "+@write"));
        CHECK(mentions(e, "SET"));
        CHECK_FALSE(mentions(e, *options.password));
    }
}

TEST_CASE("redis: an ACL user with the right password locks", "[redis][errors]") {
    auto options = test::redis_test_options("SHEDLOCK_TEST_REDIS_ACL_URI");
    options.prefix = test::unique_prefix("acl");
    auto provider = make_redis_lock_provider(options);
    CHECK(provider->try_lock({"job", milliseconds{1000}}));
}

TEST_CASE("redis: an unreachable port fails fast with unavailable", "[redis][errors]") {
    auto options = test::redis_test_options();
    options.port = 1;  // nothing listens there: connection refused
    // The property: a refused connect is an answer, not waited out until connect_timeout. A
    // timeout far beyond any stall of a loaded machine tells the two apart without a speed bound.
    options.connect_timeout = milliseconds{60'000};
    const auto start = std::chrono::steady_clock::now();
    const auto e = failure_of(options);
    CHECK(e.category() == storage_category::unavailable);
    CHECK(std::chrono::steady_clock::now() - start < milliseconds{30'000});
    CHECK_FALSE(mentions(e, *options.password));
}

TEST_CASE("redis: a server that never answers fails within connect_timeout, then fails fast", "[redis][errors]") {
    silent_listener silent;
    auto options = test::redis_test_options();
    options.port = silent.port;
    options.connect_timeout = milliseconds{300};
    auto provider = make_redis_lock_provider(options);
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_AS((void)provider->try_lock({"job", milliseconds{1000}}), storage_error);
    const auto failed = std::chrono::steady_clock::now();
    CHECK(failed - start >= milliseconds{250});  // it waited for an answer (lower bound: no load makes it shorter)
    CHECK(failed - start < milliseconds{30'000});  // and gave up: a generous "does not hang", not a speed bound
    REQUIRE(silent.new_connections() >= 1);
    // Within the pool's 250 ms reconnect backoff a call fails without connecting again: seen as no
    // new connection at the listener. A machine stalled past the backoff makes the check moot.
    const bool within_backoff = std::chrono::steady_clock::now() - failed < milliseconds{200};
    CHECK_THROWS_AS((void)provider->try_lock({"job", milliseconds{1000}}), storage_error);
    const int reconnects = silent.new_connections();
    INFO("new connections during the second call: " << reconnects << (within_backoff ? "" : " (after the backoff)"));
    if (within_backoff) CHECK(reconnects == 0);
}

TEST_CASE("redis: a read-only replica is a READONLY unavailable error naming the primary", "[redis][errors]") {
    auto options = test::redis_test_options("SHEDLOCK_TEST_REDIS_REPLICA_URI");
    options.prefix = test::unique_prefix("readonly");
    const auto e = failure_of(options);
    CHECK(e.category() == storage_category::unavailable);
    CHECK(mentions(e, "READONLY"));
    CHECK(mentions(e, "primary"));
}

TEST_CASE("redis: options from a URI", "[redis][uri]") {
    const auto o = redis_options_from_uri(parse_provider_uri(
        "redis://app:s3cret@cache.local:6380/3?prefix=locks&env=prod&connect_timeout=2s&command_timeout=500ms&pool_size=8"
        "&java_compat=true&fencing=false"));
    CHECK(o.host == "cache.local");
    CHECK(o.port == 6380);
    CHECK(o.user == "app");
    CHECK(o.password == std::optional<std::string>{"s3cret"});
    CHECK(o.db == 3);
    CHECK(o.prefix == "locks");
    CHECK(o.env == "prod");
    CHECK(o.connect_timeout == milliseconds{2000});
    CHECK(o.command_timeout == milliseconds{500});
    CHECK(o.pool_size == 8);
    CHECK(o.java_compat);
    CHECK_FALSE(o.fencing);

    const auto defaults = redis_options_from_uri(parse_provider_uri("redis://:pw@localhost"));
    CHECK(defaults.port == 6379);
    CHECK(defaults.db == 0);
    CHECK(defaults.user.empty());

    for (const char* bad : {"redis://:s3cret@h/x?prefix=a", "redis://:s3cret@h/0?pool_size=0", "redis://:s3cret@h/0?colour=red",
                            "redis://:s3cret@h/0?prefix=a{b}", "redis://:s3cret@h/0?command_timeout=0s"}) {
        INFO(bad);
        try {
            (void)redis_options_from_uri(parse_provider_uri(bad));
            FAIL("accepted");
        } catch (const configuration_error& e) {
            CHECK_FALSE(mentions(e, "s3cret"));
        }
    }
}
