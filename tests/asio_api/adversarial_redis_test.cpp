// Adversarial: a completion handler that throws, on the native Redis driver (hiredis on the
// application's io_context). On the pooled services the exception leaves io_context::run(), as
// Asio handlers' exceptions do; the driver must not swallow it. Hidden ([.][redis]): ctest runs it
// as asio_adversarial_redis against $SHEDLOCK_TEST_REDIS_URI (providers/redis/server.sh).
#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace net = boost::asio;
using shedlock::lock_configuration;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

TEST_CASE("adversarial redis: a throwing handler on the native driver leaves io_context::run", "[.][redis]") {
    const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI");
    INFO("set SHEDLOCK_TEST_REDIS_URI (eval \"$(providers/redis/server.sh start DIR)\")");
    REQUIRE(uri != nullptr);
    shedlock::register_all_async_drivers();
    net::io_context io;
    auto session = shedlock::asio::open_async_backend(uri, io.get_executor());
    REQUIRE(session->native_locks());
    const lock_configuration config(
        "adversarial-redis-thrower-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()), 30s);
    shedlock::asio::async_try_lock(session->locks(), config, [](error_code, std::optional<lock_handle> h) {
        REQUIRE(h);
        throw std::runtime_error("handler failed");
    });
    bool thrown = false;
    try {
        io.run();
    } catch (const std::runtime_error& e) {
        thrown = std::string(e.what()) == "handler failed";
    }
    CHECK(thrown);  // today: swallowed by redis_async_connection::on_reply's catch (...)
    io.restart();
    io.run_for(500ms);  // the release the handle's destructor started
    auto again = shedlock::asio::async_try_lock(session->locks(), config, net::use_future);
    io.restart();
    io.run_for(2s);
    REQUIRE(again.wait_for(0s) == std::future_status::ready);
    auto second = again.get();
    CHECK(second);  // released although the handler threw
    if (second) second->async_unlock([](error_code) {});
    io.restart();
    io.run_for(1s);
}

TEST_CASE("adversarial redis: 1000 concurrent async_try_lock from 4 io threads on the native driver",
          "[.][redis]") {
    const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI");
    REQUIRE(uri != nullptr);
    shedlock::register_all_async_drivers();
    net::io_context io;
    auto work = net::make_work_guard(io);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back([&] { io.run(); });
    {
        auto session = shedlock::asio::open_async_backend(uri, io.get_executor());
        const std::string run = std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
        for (const bool same : {true, false}) {
            INFO((same ? "one name" : "distinct names"));
            std::mutex mutex;
            std::vector<lock_handle> held;
            std::vector<std::string> errors;
            std::atomic<int> completed{0};
            for (int i = 0; i < 1000; ++i) {
                const auto name = "adv-" + run + (same ? std::string("-same") : "-" + std::to_string(i));
                net::post(io, [&, config = lock_configuration(name, 30s)] {
                    shedlock::asio::async_try_lock(session->locks(), config,
                                                   [&](error_code ec, std::optional<lock_handle> h) {
                                                       const std::lock_guard guard(mutex);
                                                       if (ec) errors.push_back(ec.message());
                                                       if (h) held.push_back(std::move(*h));
                                                       ++completed;
                                                   });
                });
            }
            const auto end = std::chrono::steady_clock::now() + 30s;
            while (completed.load() < 1000 && std::chrono::steady_clock::now() < end)
                std::this_thread::sleep_for(10ms);
            const std::lock_guard guard(mutex);
            CHECK(completed.load() == 1000);
            CHECK(errors.empty());
            if (!errors.empty()) WARN(errors.size() << " errors, first: " << errors.front());
            CHECK(held.size() == (same ? 1u : 1000u));
            held.clear();  // released in the background
        }
        std::this_thread::sleep_for(500ms);  // the releases complete before the session goes
    }
    work.reset();
    for (auto& t : threads) t.join();
}
