// MariaDB locks through open_async_backend: the registered non-blocking driver (the SQL layer's
// asynchronous lock service over mysql_async_connections), on the real server.
#include "mysql_async_helpers.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

namespace shedlock::providers {
void register_mysql_provider(provider_registry& registry);
void register_mysql_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

namespace shedlock::test::mysql_async {
namespace {

namespace net = boost::asio;

/// A session on a table of this test program's own, dropped afterwards.
struct async_backend {
    async_backend() {
        providers::register_mysql_provider(providers);
        providers::register_mysql_async_driver(drivers);
        session = shedlock::asio::open_async_backend(
            mysql_server::uri() + "?create_schema=true&pool_size=2&table=" + table, io.get_executor(), {}, providers,
            drivers);
    }
    ~async_backend() {
        session.reset();
        try {
            mysql_server::exec("DROP TABLE IF EXISTS " + table);
        } catch (...) {
        }
    }
    const std::string table = "shedlock_async_" + std::to_string(::getpid());
    provider_registry providers;
    shedlock::asio::async_registry drivers;
    net::io_context io;
    std::unique_ptr<shedlock::asio::async_session> session;
};

net::awaitable<void> lock_cycle(shedlock::asio::lock_service& locks, int& steps) {
    const lock_configuration config("async-mysql-lock", std::chrono::minutes(1));
    auto held = co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable);
    CHECK(held.has_value());
    CHECK_FALSE(co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable));  // held: empty
    co_await held->async_unlock(net::use_awaitable);
    auto again = co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable);
    CHECK(again.has_value());
    co_await again->async_unlock(net::use_awaitable);
    steps = 4;
}

TEST_CASE("mysql async: locks through open_async_backend use the non-blocking driver") {
    async_backend b;
    REQUIRE(b.session->native_locks());
    CHECK_THAT(b.session->locks().describe(), Catch::Contains("non-blocking MariaDB"));
    int steps = 0;
    std::exception_ptr failure;
    net::co_spawn(b.io, lock_cycle(b.session->locks(), steps), [&](std::exception_ptr e) { failure = e; });
    b.io.run();
    if (failure) FAIL(shedlock::asio::failure_message(failure));
    CHECK(steps == 4);
}

net::awaitable<void> lock_one(shedlock::asio::lock_service& locks, int i, int& acquired) {
    const lock_configuration config("async-mysql-many-" + std::to_string(i), std::chrono::minutes(1));
    auto held = co_await shedlock::asio::async_try_lock(locks, config, net::use_awaitable);
    if (!held) co_return;
    ++acquired;
    co_await held->async_unlock(net::use_awaitable);
}

TEST_CASE("mysql async: 32 locks at once over a pool of 2 connections on one thread") {
    async_backend b;
    int acquired = 0;
    int failures = 0;
    for (int i = 0; i < 32; ++i) {
        net::co_spawn(b.io, lock_one(b.session->locks(), i, acquired), [&](std::exception_ptr e) {
            if (e) ++failures;
        });
    }
    b.io.run();
    CHECK(failures == 0);
    CHECK(acquired == 32);
}

}  // namespace
}  // namespace shedlock::test::mysql_async
