// The non-blocking Redis driver when the connection fails, on a redis-server of the test's own
// (own_redis_server): killed connections (CLIENT KILL), a frozen server (SIGSTOP) and no server
// at all. Each failure completes with the error code of its retry advice, the io_context thread
// keeps running meanwhile, and the next operation works on a new connection.
#include "redis_own_server.hpp"
#include "redis_test_support.hpp"

#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/redis_async.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <thread>

namespace net = boost::asio;
using namespace std::chrono_literals;
using shedlock::asio::errc;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

/// An io_context run by one background thread for the test's lifetime.
struct io_thread {
    net::io_context io;
    net::executor_work_guard<net::io_context::executor_type> work{io.get_executor()};
    std::thread thread{[this] { io.run(); }};
    ~io_thread() {
        work.reset();
        thread.join();
    }
};

struct outcome {
    error_code ec;
    std::optional<lock_handle> handle;
};

/// Starts an acquire; its outcome arrives through the future.
std::future<outcome> start_acquire(shedlock::asio::lock_service& service, const std::string& name) {
    auto promise = std::make_shared<std::promise<outcome>>();
    auto result = promise->get_future();
    shedlock::asio::async_try_lock(service, {name, 10s}, [promise](error_code ec, std::optional<lock_handle> handle) {
        promise->set_value({ec, std::move(handle)});
    });
    return result;
}

outcome acquire(shedlock::asio::lock_service& service, const std::string& name) {
    return start_acquire(service, name).get();
}

void unlock(lock_handle& handle) {
    std::promise<error_code> done;
    handle.async_unlock([&](error_code ec) { done.set_value(ec); });
    CHECK_FALSE(done.get_future().get());
}

/// Waits (at most 10 s) until the server holds `count` clients blocked (postponed by CLIENT PAUSE).
void wait_for_blocked(shedlock::test::raw_redis& raw, int count) {
    for (int i = 0; i < 1000; ++i) {
        const std::string info = raw.text({"INFO", "clients"});
        if (info.find("blocked_clients:" + std::to_string(count)) != std::string::npos) return;
        std::this_thread::sleep_for(10ms);
    }
    FAIL("the acquire never reached the server");
}

}  // namespace

TEST_CASE("redis async: a connection killed with the acquire in flight fails in doubt then recovers",
          "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.pool_size = 1;
    io_thread runner;
    auto service = shedlock::providers::make_redis_async_lock_service(options, runner.io.get_executor());
    auto first = acquire(*service, "warm-up");  // the connection is open and the script loaded
    REQUIRE(first.handle);
    unlock(*first.handle);

    shedlock::test::raw_redis raw(options);
    raw.text({"CLIENT", "PAUSE", "10000", "WRITE"});  // scripts wait, CLIENT KILL still runs
    auto pending = start_acquire(*service, "killed");
    wait_for_blocked(raw, 1);
    CHECK(raw.integer({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}) == 1);
    const auto killed = pending.get();
    raw.text({"CLIENT", "UNPAUSE"});
    CHECK(killed.ec == errc::in_doubt);  // the script was sent: it may have run
    CHECK_FALSE(killed.handle);

    auto recovered = acquire(*service, "after-kill");
    CHECK_FALSE(recovered.ec);
    REQUIRE(recovered.handle);
    unlock(*recovered.handle);
}

TEST_CASE("redis async: an acquire after CLIENT KILL of the idle connections runs again on a new one",
          "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    io_thread runner;
    auto service = shedlock::providers::make_redis_async_lock_service(options, runner.io.get_executor());
    for (int round = 0; round < 3; ++round) {
        auto held = acquire(*service, "idle-" + std::to_string(round));
        CHECK_FALSE(held.ec);
        REQUIRE(held.handle);
        unlock(*held.handle);
        shedlock::test::raw_redis raw(options);
        CHECK(raw.integer({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}) >= 1);
    }
}

TEST_CASE("redis async: a frozen server times the command out while the io_context thread runs on",
          "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.pool_size = 1;
    options.command_timeout = 400ms;
    net::io_context io;  // run by this thread: the timer below shares it with the driver
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());

    std::optional<error_code> warm;
    shedlock::asio::async_try_lock(*service, {"warm-up", 10s},
                                   [&](error_code ec, std::optional<lock_handle>) { warm = ec; });
    io.run();
    io.restart();
    REQUIRE(warm);
    REQUIRE_FALSE(*warm);

    server.freeze();
    std::optional<error_code> frozen;
    int ticks_before_timeout = 0, ticks = 0;
    net::steady_timer ticker(io);
    std::function<void()> tick = [&] {
        ticker.expires_after(20ms);
        ticker.async_wait([&](boost::system::error_code ec) {
            if (ec || frozen) return;
            ++ticks;
            tick();
        });
    };
    tick();
    shedlock::asio::async_try_lock(*service, {"frozen", 10s}, [&](error_code ec, std::optional<lock_handle> handle) {
        frozen = ec;
        ticks_before_timeout = ticks;
        CHECK_FALSE(handle);
    });
    io.run();
    io.restart();
    server.thaw();
    REQUIRE(frozen);
    CHECK(*frozen == errc::in_doubt);
    CHECK(ticks_before_timeout >= 3);  // the thread was never blocked waiting for Redis

    std::optional<error_code> after;
    std::optional<lock_handle> handle;
    shedlock::asio::async_try_lock(*service, {"after-thaw", 10s}, [&](error_code ec, std::optional<lock_handle> h) {
        after = ec;
        handle = std::move(h);
        if (handle) handle->async_unlock([](error_code) {});
    });
    io.run();
    REQUIRE(after);
    CHECK_FALSE(*after);
    CHECK(handle.has_value());
}

TEST_CASE("redis async: a handshake never answered fails within connect_timeout as backend_unavailable",
          "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.password = "never-checked";  // AUTH is sent first: the frozen server never answers it
    options.connect_timeout = 300ms;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    server.freeze();
    std::optional<error_code> result;
    std::string message;
    service->start_try_lock({"handshake", 10s}, "owner", [&](std::exception_ptr failure, std::optional<shedlock::lease>) {
        result = shedlock::asio::to_error_code(failure);
        message = shedlock::asio::failure_message(failure);
    });
    io.run();
    server.thaw();
    REQUIRE(result);
    CHECK(*result == errc::backend_unavailable);  // nothing of ours was sent: safe to retry
    CHECK(message.find("connect_timeout=300ms") != std::string::npos);
}

TEST_CASE("redis async: no server gives backend_unavailable", "[redis][async][faults]") {
    std::uint16_t port = 0;
    {
        shedlock::test::own_redis_server gone;  // a port that was free, now closed again
        port = gone.port();
    }
    shedlock::providers::redis_options options;
    options.port = port;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    std::optional<error_code> result;
    shedlock::asio::async_try_lock(*service, {"nobody", 10s}, [&](error_code ec, std::optional<lock_handle>) {
        result = ec;
    });
    io.run();
    REQUIRE(result);
    CHECK(*result == errc::backend_unavailable);
}

TEST_CASE("redis async: bad options are refused when the service is made", "[redis][async]") {
    shedlock::providers::redis_options options;
    options.command_timeout = 0ms;
    net::io_context io;
    CHECK_THROWS_AS(shedlock::providers::make_redis_async_lock_service(options, io.get_executor()),
                    shedlock::configuration_error);
}

TEST_CASE("redis async: a server that forgot the scripts (SCRIPT FLUSH) gets them loaded again", "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.pool_size = 1;
    io_thread runner;
    auto service = shedlock::providers::make_redis_async_lock_service(options, runner.io.get_executor());
    auto first = acquire(*service, "before-flush");
    REQUIRE(first.handle);
    shedlock::test::raw_redis raw(options);
    raw.text({"SCRIPT", "FLUSH"});
    unlock(*first.handle);  // NOSCRIPT, SCRIPT LOAD, EVALSHA again
    CHECK(raw.text({"EXISTS", "shedlock:{before-flush}"}) == "0");
    auto second = acquire(*service, "after-flush");
    CHECK_FALSE(second.ec);
    REQUIRE(second.handle);
    unlock(*second.handle);
}

TEST_CASE("redis async: error replies carry the blocking provider's retry advice", "[redis][async][faults]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    io_thread runner;
    auto service = shedlock::providers::make_redis_async_lock_service(options, runner.io.get_executor());
    shedlock::test::raw_redis raw(options);
    // A foreign value under the lock key: WRONGTYPE, which no retry fixes.
    raw.text({"HSET", "shedlock:{foreign}", "field", "value"});
    CHECK(acquire(*service, "foreign").ec == errc::backend_error);
    // OOM applies nothing: safe to retry.
    raw.text({"CONFIG", "SET", "maxmemory", "1"});
    CHECK(acquire(*service, "out-of-memory").ec == errc::backend_unavailable);
    raw.text({"CONFIG", "SET", "maxmemory", "0"});
    auto recovered = acquire(*service, "out-of-memory");
    REQUIRE(recovered.handle);
    unlock(*recovered.handle);
}
