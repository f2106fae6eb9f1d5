// The non-blocking Redis driver (make_redis_async_lock_service) on the shared test server: the
// lock operations through use_awaitable and through callbacks, the same keys and semantics as the
// blocking provider, and many operations in flight on one thread. (Failures: redis_async_fault_test.cpp.)
#include "redis_test_support.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/redis_async.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::providers {
// Defined by the provider (redis_registration.cpp) and its driver (redis_async_registration.cpp);
// registered one by one, so this program needs no other backend.
void register_redis_provider(provider_registry& registry);
void register_redis_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

namespace net = boost::asio;
using namespace std::chrono_literals;
using shedlock::asio::errc;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

shedlock::providers::redis_options async_options() {
    auto options = shedlock::test::redis_test_options();
    options.prefix = shedlock::test::unique_prefix("async");
    return options;
}

/// Runs `body` as a coroutine on `io` (one thread: this one) until it finishes; rethrows.
template <typename Body>
void run_coroutine(net::io_context& io, Body body) {
    std::exception_ptr failure;
    net::co_spawn(io, std::move(body), [&](std::exception_ptr e) { failure = e; });
    io.run();
    io.restart();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

TEST_CASE("redis async: acquire held elsewhere extend and unlock through use_awaitable", "[redis][async]") {
    const auto options = async_options();
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    auto blocking = shedlock::providers::make_redis_lock_provider(options);
    shedlock::test::raw_redis raw(options);
    const std::string key = options.prefix + ":{tidy}";
    CHECK(service->supports_fencing());
    CHECK(service->describe().find("non-blocking") != std::string::npos);

    run_coroutine(io, [&]() -> net::awaitable<void> {
        auto handle = co_await shedlock::asio::async_try_lock(*service, {"tidy", 10s}, net::use_awaitable);
        REQUIRE(handle);
        CHECK(handle->fencing_token().has_value());
        CHECK(raw.text({"GET", key}) == handle->lease().owner);
        // Held: for this service and for the blocking provider on the same keys.
        auto second = co_await shedlock::asio::async_try_lock(*service, {"tidy", 10s}, net::use_awaitable);
        CHECK_FALSE(second);
        CHECK_FALSE(blocking->try_lock({"tidy", 10s}));

        auto extended = co_await handle->async_extend(30s, net::use_awaitable);
        REQUIRE(extended);
        CHECK(raw.integer({"PTTL", key}) > 10000);
        co_await extended->async_unlock(net::use_awaitable);
        CHECK(raw.text({"EXISTS", key}) == "0");

        // Free again; the fencing token only grows.
        auto again = co_await shedlock::asio::async_try_lock(*service, {"tidy", 10s}, net::use_awaitable);
        REQUIRE(again);
        CHECK(*again->fencing_token() > *handle->fencing_token());
        co_await again->async_unlock(net::use_awaitable);
    });
}

TEST_CASE("redis async: acquire and unlock through callbacks", "[redis][async]") {
    const auto options = async_options();
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    std::optional<lock_handle> held;
    error_code acquired_ec = errc::shut_down, released_ec = errc::shut_down;
    shedlock::asio::async_try_lock(*service, {"callback", 10s}, [&](error_code ec, std::optional<lock_handle> handle) {
        acquired_ec = ec;
        held = std::move(handle);
        if (held) held->async_unlock([&](error_code unlock_ec) { released_ec = unlock_ec; });
    });
    io.run();
    CHECK_FALSE(acquired_ec);
    CHECK_FALSE(released_ec);
    CHECK(held.has_value());
    shedlock::test::raw_redis raw(options);
    CHECK(raw.text({"EXISTS", options.prefix + ":{callback}"}) == "0");
}

TEST_CASE("redis async: unlock keeps the key for the rest of lock_at_least_for", "[redis][async]") {
    const auto options = async_options();
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    run_coroutine(io, [&]() -> net::awaitable<void> {
        auto handle = co_await shedlock::asio::async_try_lock(*service, {"hold", 10s, 5s}, net::use_awaitable);
        REQUIRE(handle);
        co_await handle->async_unlock(net::use_awaitable);
    });
    shedlock::test::raw_redis raw(options);
    const long long ttl = raw.integer({"PTTL", options.prefix + ":{hold}"});
    CHECK(ttl > 0);
    CHECK(ttl <= 5000);
}

TEST_CASE("redis async: 64 lock cycles in flight on one thread all complete", "[redis][async]") {
    auto options = async_options();
    options.pool_size = 2;
    net::io_context io;  // run by this thread only
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    int cycles = 0, finished = 0;
    std::vector<lock_handle> winners;  // of the one contended lock: kept until all 64 tried it
    for (int i = 0; i < 64; ++i) {
        net::co_spawn(io, [&, i]() -> net::awaitable<void> {
            auto own = co_await shedlock::asio::async_try_lock(*service, {"many-" + std::to_string(i), 10s},
                                                                net::use_awaitable);
            auto shared = co_await shedlock::asio::async_try_lock(*service, {"contended", 10s}, net::use_awaitable);
            if (shared) winners.push_back(std::move(*shared));
            if (own) {
                co_await own->async_unlock(net::use_awaitable);
                ++cycles;
            }
            ++finished;
        }, net::detached);
    }
    io.run();
    io.restart();
    CHECK(finished == 64);
    CHECK(cycles == 64);
    CHECK(winners.size() == 1);
    run_coroutine(io, [&]() -> net::awaitable<void> {
        for (auto& winner : winners) co_await winner.async_unlock(net::use_awaitable);
    });
    shedlock::test::raw_redis raw(options);
    CHECK(raw.text({"EXISTS", options.prefix + ":{contended}"}) == "0");
}

TEST_CASE("redis async: open_async_backend uses the native driver for redis URIs", "[redis][async]") {
    shedlock::providers::register_redis_provider(shedlock::provider_registry::global());
    shedlock::providers::register_redis_async_driver(shedlock::asio::async_registry::global());
    net::io_context io;
    auto session = shedlock::asio::open_async_backend(shedlock::test::required_env("SHEDLOCK_TEST_REDIS_URI"),
                                                      io.get_executor());
    CHECK(session->native_locks());
    CHECK(session->locks().describe().find("hiredis") != std::string::npos);
    run_coroutine(io, [&]() -> net::awaitable<void> {
        const std::string name = shedlock::test::unique_prefix("session");
        auto handle = co_await shedlock::asio::async_try_lock(session->locks(), {name, 10s}, net::use_awaitable);
        REQUIRE(handle);
        co_await handle->async_unlock(net::use_awaitable);
    });
}

TEST_CASE("redis async: open_async_backend runs a wait_replicas URI on the pool (WAIT lives in the blocking provider)",
          "[redis][async]") {
    shedlock::providers::register_redis_provider(shedlock::provider_registry::global());
    shedlock::providers::register_redis_async_driver(shedlock::asio::async_registry::global());
    net::io_context io;
    // The test server's replica (server.sh, port 63798) acknowledges the WAIT.
    const std::string uri = shedlock::test::required_env("SHEDLOCK_TEST_REDIS_URI") + "?wait_replicas=1&wait_timeout=400ms";
    auto session = shedlock::asio::open_async_backend(uri, io.get_executor());
    CHECK(session->locks().describe().find("pool") != std::string::npos);
    CHECK_THROWS_AS(shedlock::providers::make_redis_async_lock_service(
                        shedlock::providers::redis_options_from_uri(shedlock::parse_provider_uri(uri)), io.get_executor()),
                    shedlock::configuration_error);
    run_coroutine(io, [&]() -> net::awaitable<void> {
        const std::string name = shedlock::test::unique_prefix("waited");
        auto handle = co_await shedlock::asio::async_try_lock(session->locks(), {name, 10s}, net::use_awaitable);
        REQUIRE(handle);
        co_await handle->async_unlock(net::use_awaitable);
    });
}

TEST_CASE("redis async: a service destroyed with operations in flight drops them and closes its connections",
          "[redis][async]") {
    const auto options = async_options();
    net::io_context io;
    int completed = 0;
    {
        auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
        for (int i = 0; i < 8; ++i)
            shedlock::asio::async_try_lock(*service, {"dropped-" + std::to_string(i), 10s},
                                           [&](error_code, std::optional<lock_handle>) { ++completed; });
        io.run_one();  // some of them under way
    }
    io.run();  // returns: nothing of the service keeps it busy
    CHECK(completed == 0);
}
