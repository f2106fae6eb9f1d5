// async_try_lock and the handle's async_unlock / async_extend with every kind of completion
// token: callbacks, use_future, use_awaitable, redirect_error, bind_executor(strand).
#include "scripted_lock_service.hpp"

#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace std::chrono_literals;
namespace net = boost::asio;
using shedlock::lock_configuration;
using shedlock::asio::errc;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

lock_configuration config(const std::string& name) { return lock_configuration(name, 10s); }

}  // namespace

TEST_CASE("async_try_lock with a callback: granted then held elsewhere (no error) then released") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    std::optional<lock_handle> first;
    bool second_done = false;
    std::thread::id handler_thread;
    shedlock::asio::async_try_lock(service, config("job"), [&](error_code ec, std::optional<lock_handle> h) {
        REQUIRE_FALSE(ec);
        REQUIRE(h);
        handler_thread = std::this_thread::get_id();
        first = std::move(h);
        shedlock::asio::async_try_lock(service, config("job"), [&](error_code ec2, std::optional<lock_handle> h2) {
            CHECK_FALSE(ec2);  // contention is not an error
            CHECK_FALSE(h2);
            second_done = true;
            first->async_unlock([&](error_code ec3) { CHECK_FALSE(ec3); });
        });
    });
    io.run();
    CHECK(second_done);
    CHECK(handler_thread == std::this_thread::get_id());  // the thread that ran the io_context
    CHECK(service.unlocks == 1);
    CHECK_FALSE(first->active());
}

TEST_CASE("async_try_lock with use_future from a thread that does not run the io_context") {
    net::io_context io;
    auto work = net::make_work_guard(io);
    std::thread runner([&] { io.run(); });
    shedlock::test::scripted_lock_service service(io.get_executor());
    auto acquired = shedlock::asio::async_try_lock(service, config("future"), net::use_future).get();
    REQUIRE(acquired);
    CHECK(acquired->fencing_token());
    CHECK_FALSE(shedlock::asio::async_try_lock(service, config("future"), net::use_future).get());
    acquired->async_unlock(net::use_future).get();
    CHECK(shedlock::asio::async_try_lock(service, config("future"), net::use_future).get());
    work.reset();
    runner.join();
}

TEST_CASE("use_awaitable: acquire then extend then unlock in a coroutine and a used handle is a lock_state error") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    bool finished = false;
    net::co_spawn(
        io,
        [&]() -> net::awaitable<void> {
            auto handle = co_await shedlock::asio::async_try_lock(service, config("coro"), net::use_awaitable);
            REQUIRE(handle);
            const auto until = handle->lock_until();
            auto extended = co_await handle->async_extend(60s, net::use_awaitable);
            REQUIRE(extended);
            CHECK(extended->lock_until() > until);
            CHECK(extended->fencing_token() == handle->fencing_token());
            CHECK_FALSE(handle->active());
            error_code ec;
            co_await handle->async_unlock(net::redirect_error(net::use_awaitable, ec));
            CHECK(ec == errc::lock_state);
            co_await extended->async_unlock(net::use_awaitable);
            finished = true;
        },
        net::detached);
    io.run();
    CHECK(finished);
    CHECK(service.unlocks == 1);
}

TEST_CASE("a backend failure completes with the code of its retry advice and the lock counts as not acquired") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    const auto attempt = [&](shedlock::retry_advice advice) {
        service.fail_with = advice;
        error_code ec;
        std::optional<lock_handle> handle;
        net::co_spawn(
            io,
            [&]() -> net::awaitable<void> {
                handle = co_await shedlock::asio::async_try_lock(service, config("failing"),
                                                                 net::redirect_error(net::use_awaitable, ec));
            },
            net::detached);
        io.restart();
        io.run();
        CHECK_FALSE(handle);
        return ec;
    };
    CHECK(attempt(shedlock::retry_advice::safe) == errc::backend_unavailable);
    CHECK(attempt(shedlock::retry_advice::in_doubt) == errc::in_doubt);
    CHECK(attempt(shedlock::retry_advice::permanent) == errc::backend_error);
    CHECK(shedlock::asio::make_error_code(errc::in_doubt).message().find("may have been applied") != std::string::npos);
}

TEST_CASE("a failed extension hands the same lease back still active so it can be unlocked") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    std::optional<lock_handle> handle;
    shedlock::asio::async_try_lock(service, config("extend-fails"), [&](error_code, std::optional<lock_handle> h) {
        handle = std::move(h);
        service.fail_with = shedlock::retry_advice::in_doubt;
        handle->async_extend(30s, [&](error_code ec, std::optional<lock_handle> back) {
            CHECK(ec == errc::in_doubt);
            REQUIRE(back);
            CHECK(back->active());
            service.fail_with.reset();
            back->async_unlock([](error_code ec2) { CHECK_FALSE(ec2); });
        });
    });
    io.run();
    CHECK(service.unlocks == 1);
}

TEST_CASE("bind_executor: the handler runs on the strand it was bound to") {
    net::io_context io;
    auto strand = net::make_strand(io);
    shedlock::test::scripted_lock_service service(io.get_executor());
    bool on_strand = false;
    shedlock::asio::async_try_lock(service, config("strand"),
                                   net::bind_executor(strand, [&](error_code, std::optional<lock_handle> h) {
                                       on_strand = strand.running_in_this_thread();
                                       CHECK(h);
                                   }));
    std::thread other([&] { io.run(); });
    io.run();
    other.join();
    CHECK(on_strand);
}

TEST_CASE("a handle destroyed on the executor thread starts the release and returns without waiting for it") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    std::chrono::steady_clock::duration destroy_took{};
    int unlocks_at_destruction = -1;
    shedlock::asio::async_try_lock(service, config("raii"), [&](error_code, std::optional<lock_handle> h) {
        REQUIRE(h);
        service.answer_after = 300ms;  // the release answers late
        const auto before = std::chrono::steady_clock::now();
        h.reset();
        destroy_took = std::chrono::steady_clock::now() - before;
        unlocks_at_destruction = service.unlocks;
    });
    io.run();  // returns once the release completed: it kept the io_context busy
    CHECK(unlocks_at_destruction == 0);
    CHECK(destroy_took < 100ms);  // far below the 300 ms answer: it did not wait
    CHECK(service.unlocks == 1);
}

TEST_CASE("a used handle answers a plain callback on the service's executor as the first call did") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    std::thread::id second_unlock_thread, second_extend_thread;
    error_code unlock_ec, extend_ec;
    shedlock::asio::async_try_lock(service, config("used"), [&](error_code, std::optional<lock_handle> h) {
        REQUIRE(h);
        auto handle = std::make_shared<lock_handle>(std::move(*h));
        handle->async_unlock([&, handle](error_code) {
            handle->async_unlock([&, handle](error_code ec) {
                unlock_ec = ec;
                second_unlock_thread = std::this_thread::get_id();
            });
            handle->async_extend(10s, [&, handle](error_code ec, std::optional<lock_handle>) {
                extend_ec = ec;
                second_extend_thread = std::this_thread::get_id();
            });
        });
    });
    io.run();
    CHECK(unlock_ec == errc::lock_state);
    CHECK(extend_ec == errc::lock_state);
    // On the thread that ran the io_context, not on a thread of Asio's system executor.
    CHECK(second_unlock_thread == std::this_thread::get_id());
    CHECK(second_extend_thread == std::this_thread::get_id());
}
