// The adapters between the two interfaces: blocking backends behind the asynchronous one
// (open_async_backend on memory: and sqlite:, pooled claims) and an asynchronous service behind
// the blocking one (blocking_lock_provider).
#include "scripted_lock_service.hpp"

#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/asio/blocking_lock_provider.hpp>
#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/lock_ops.hpp>

#include "../support/test_env.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace std::chrono_literals;
namespace net = boost::asio;
using shedlock::asio::errc;
using shedlock::asio::error_code;

namespace {

/// Runs `body` as a coroutine on a fresh io_context until it returns.
template <typename Body>
void run_coroutine(Body body) {
    net::io_context io;
    bool finished = false;
    net::co_spawn(io, [&]() -> net::awaitable<void> {
        co_await body(io);
        finished = true;
    }, net::detached);
    io.run();
    REQUIRE(finished);
}

net::awaitable<void> exclusive_cycle(shedlock::asio::lock_service& locks) {
    const shedlock::lock_configuration config("pooled", 10s);
    auto held = co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable);
    REQUIRE(held);
    CHECK_FALSE(co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable));
    co_await held->async_unlock(net::use_awaitable);
    auto again = co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable);
    REQUIRE(again);
    if (locks.supports_fencing()) CHECK(*again->fencing_token() > *held->fencing_token());
    co_await again->async_unlock(net::use_awaitable);
}

}  // namespace

TEST_CASE("open_async_backend on memory and sqlite runs the blocking providers on a pool") {
    shedlock::register_all_async_drivers();
    const auto dir = shedlock::test::scratch_dir();
    for (const std::string& uri : {std::string("memory:"), "sqlite:" + dir + "/locks.db?create_schema=true"}) {
        INFO(uri);
        run_coroutine([&](net::io_context& io) -> net::awaitable<void> {
            auto session = shedlock::asio::open_async_backend(uri, io.get_executor());
            CHECK_FALSE(session->native_locks());
            CHECK(session->locks().describe().find("pool of 4 threads") != std::string::npos);
            co_await exclusive_cycle(session->locks());
        });
    }
}

TEST_CASE("async claims on the pool: claimed then in progress then done and a bad key never reaches the backend") {
    shedlock::register_all_async_drivers();
    run_coroutine([](net::io_context& io) -> net::awaitable<void> {
        auto session = shedlock::asio::open_async_backend("memory:", io.get_executor());
        auto& claims = session->claims();
        auto first = co_await shedlock::asio::async_claim(claims, "settle:1", 10s, 7, net::use_awaitable);
        REQUIRE(first.status == shedlock::claim_status::claimed);
        CHECK(first.claim->fencing_token == 7);
        auto second = co_await shedlock::asio::async_claim(claims, "settle:1", 10s, std::nullopt, net::use_awaitable);
        CHECK(second.status == shedlock::claim_status::in_progress);
        CHECK(co_await shedlock::asio::async_complete(claims, *first.claim, "42 rows", net::use_awaitable) ==
              shedlock::finish_status::finished);
        auto third = co_await shedlock::asio::async_claim(claims, "settle:1", 10s, std::nullopt, net::use_awaitable);
        CHECK(third.status == shedlock::claim_status::already_done);
        CHECK(third.record.result == "42 rows");
        // Refused from the call itself, naming the value (an error code could not name it).
        CHECK_THROWS_WITH(shedlock::asio::async_claim(claims, "", 10s, std::nullopt, net::use_awaitable),
                          Catch::Contains("idempotency key is empty"));
        CHECK_THROWS_WITH(shedlock::asio::async_claim(claims, "k", 0ms, std::nullopt, net::use_awaitable),
                          Catch::Contains("claim_for"));
        CHECK(session->blocking().claims().list().size() == 1);  // nothing written for the bad ones
    });
}

TEST_CASE("blocking_lock_provider drives an asynchronous service to completion for blocking callers") {
    shedlock::asio::blocking_lock_provider provider([](shedlock::asio::lock_service::executor_type ex) {
        return std::make_unique<shedlock::test::scripted_lock_service>(std::move(ex));
    });
    auto held = provider.try_lock(shedlock::lock_configuration("bridge", 10s));
    REQUIRE(held);
    CHECK(held->fencing_token());
    CHECK_FALSE(provider.try_lock(shedlock::lock_configuration("bridge", 10s)));
    auto extended = held->extend(20s);
    REQUIRE(extended);
    extended->unlock();
    CHECK(provider.try_lock(shedlock::lock_configuration("bridge", 10s)));
    auto& scripted = static_cast<shedlock::test::scripted_lock_service&>(provider.service());
    scripted.fail_with = shedlock::retry_advice::safe;
    CHECK_THROWS_AS(provider.try_lock(shedlock::lock_configuration("other", 10s)), shedlock::storage_error);
}

TEST_CASE("a session keeps its own copy of the driver registration when the registry it came from is gone") {
    shedlock::register_all_async_drivers();
    net::io_context io;
    std::unique_ptr<shedlock::asio::async_session> session;
    {
        shedlock::asio::async_registry local;  // an application's own registry, gone before the session is used
        local.add({"memory",
                   [](const shedlock::provider_uri&, shedlock::backend_session&,
                      shedlock::asio::lock_service::executor_type ex) -> std::unique_ptr<shedlock::asio::lock_service> {
                       return std::make_unique<shedlock::test::scripted_lock_service>(std::move(ex));
                   },
                   {}});
        session = shedlock::asio::open_async_backend("memory:", io.get_executor(), {},
                                                     shedlock::provider_registry::global(), local);
    }
    REQUIRE(session->native_locks());
    CHECK(session->locks().describe() == "scripted");
}
