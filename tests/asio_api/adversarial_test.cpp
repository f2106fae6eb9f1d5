// Adversarial use of the token layer (issue 23): many threads and many calls at once on the pooled
// services of memory: and sqlite:, handlers that throw or whose executor is stopped, bad
// arguments to async_extend, use_future on the io_context's only thread.
#include "scripted_lock_service.hpp"

#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>

#include "../support/test_env.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace net = boost::asio;
using shedlock::lock_configuration;
using shedlock::asio::errc;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

/// An io_context run by `n` threads until destroyed.
struct io_threads {
    explicit io_threads(int n) : work(net::make_work_guard(io)) {
        for (int i = 0; i < n; ++i) threads.emplace_back([this] { io.run(); });
    }
    ~io_threads() {
        work.reset();
        for (auto& t : threads) t.join();
    }
    net::io_context io;
    net::executor_work_guard<net::io_context::executor_type> work;
    std::vector<std::thread> threads;
};

/// What 1000 concurrent acquisitions ended with; the handles are kept until all completed.
struct tally {
    std::mutex mutex;
    std::vector<lock_handle> held;
    std::vector<std::string> errors;
    std::atomic<int> completed{0};
};

/// Starts `calls` async_try_lock from the io threads themselves (posted), `name(i)` each.
template <typename Name>
void start_many(io_threads& io, shedlock::asio::lock_service& locks, tally& t, int calls, Name name) {
    for (int i = 0; i < calls; ++i) {
        net::post(io.io, [&locks, &t, config = lock_configuration(name(i), 30s)] {
            shedlock::asio::async_try_lock(locks, config, [&t](error_code ec, std::optional<lock_handle> h) {
                {
                    const std::lock_guard guard(t.mutex);
                    if (ec) t.errors.push_back(ec.message());
                    if (h) t.held.push_back(std::move(*h));
                }
                ++t.completed;
            });
        });
    }
}

bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

std::vector<std::string> uris() {
    const auto dir = shedlock::test::scratch_dir();
    return {"memory:", "sqlite:" + dir + "/adversarial.db?create_schema=true"};
}

}  // namespace

TEST_CASE("adversarial: 1000 concurrent async_try_lock from 4 io threads on one name grant it once") {
    shedlock::register_all_async_drivers();
    for (const auto& uri : uris()) {
        INFO(uri);
        io_threads io(4);
        auto session = shedlock::asio::open_async_backend(uri, io.io.get_executor());
        tally t;
        start_many(io, session->locks(), t, 1000, [](int) { return std::string("contended"); });
        REQUIRE(wait_until([&] { return t.completed.load() == 1000; }, 60s));
        const std::lock_guard guard(t.mutex);
        CHECK(t.held.size() == 1);
        CHECK(t.errors.empty());
        if (!t.errors.empty()) WARN(t.errors.size() << " errors, first: " << t.errors.front());
        t.held.clear();  // released in the background by the destructor
        auto& blocking = session->blocking().locks();
        CHECK(wait_until([&] { return blocking.try_lock(lock_configuration("contended", 1s)).has_value(); }, 10s));
    }
}

TEST_CASE("adversarial: 1000 concurrent async_try_lock on distinct names all granted and all released") {
    shedlock::register_all_async_drivers();
    for (const auto& uri : uris()) {
        INFO(uri);
        io_threads io(4);
        auto session = shedlock::asio::open_async_backend(uri, io.io.get_executor());
        tally t;
        start_many(io, session->locks(), t, 1000, [](int i) { return "distinct-" + std::to_string(i); });
        REQUIRE(wait_until([&] { return t.completed.load() == 1000; }, 60s));
        std::vector<lock_handle> handles;
        {
            const std::lock_guard guard(t.mutex);
            CHECK(t.held.size() == 1000);
            CHECK(t.errors.empty());
            if (!t.errors.empty()) WARN(t.errors.size() << " errors, first: " << t.errors.front());
            handles = std::move(t.held);
        }
        // Destroyed on this thread, which acquired none of them.
        handles.clear();
        auto& blocking = session->blocking().locks();
        CHECK(wait_until([&] { return blocking.try_lock(lock_configuration("distinct-999", 1s)).has_value(); }, 10s));
        CHECK(wait_until([&] { return blocking.try_lock(lock_configuration("distinct-0", 1s)).has_value(); }, 10s));
    }
}

TEST_CASE("adversarial: a handler that throws leaves io_context::run and its lock is still released") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    shedlock::asio::async_try_lock(service, lock_configuration("thrower", 30s),
                                   [](error_code, std::optional<lock_handle> h) {
                                       REQUIRE(h);
                                       throw std::runtime_error("handler failed");
                                   });
    CHECK_THROWS_WITH(io.run(), "handler failed");
    io.restart();
    io.run();  // the release the handle's destructor started
    CHECK(service.unlocks == 1);
    CHECK(service.storage().try_lock(lock_configuration("thrower", 1s)));
}

TEST_CASE("adversarial: a handler bound to a stopped io_context runs never and its lock is released when that "
          "io_context goes") {
    io_threads io(1);
    shedlock::test::scripted_lock_service service(io.io.get_executor());
    std::atomic<bool> ran{false};
    {
        net::io_context other;
        auto strand = net::make_strand(other);
        other.stop();
        shedlock::asio::async_try_lock(service, lock_configuration("orphan", 30s),
                                       net::bind_executor(strand, [&](error_code, std::optional<lock_handle>) {
                                           ran = true;
                                       }));
        std::this_thread::sleep_for(200ms);
        CHECK_FALSE(service.storage().try_lock(lock_configuration("orphan", 1s)));  // granted, sits in `other`
    }  // `other` destroys the handler, and with it the handle
    CHECK_FALSE(ran.load());
    CHECK(wait_until([&] { return service.unlocks.load() == 1; }, 5s));
}

TEST_CASE("adversarial: async_extend with a bad at_most or minimum_hold keeps the lease") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    auto h = shedlock::asio::async_try_lock(service, lock_configuration("extend-bad", 30s), net::use_future);
    io.run();
    auto handle = h.get();
    REQUIRE(handle);
    const auto until = handle->lock_until();
    struct bad_case {
        std::chrono::milliseconds at_most, minimum_hold;
    };
    for (const auto& bad : {bad_case{0ms, 0ms}, bad_case{-5ms, 0ms}, bad_case{1s, 2s}}) {
        INFO("at_most " << bad.at_most.count() << " ms and minimum_hold " << bad.minimum_hold.count() << " ms");
        bool called = false;
        // Refused from the call itself, before the handle is used: it stays active and held.
        CHECK_THROWS_AS(handle->async_extend(bad.at_most, bad.minimum_hold,
                                             [&](error_code, std::optional<lock_handle>) { called = true; }),
                        shedlock::configuration_error);
        io.restart();
        io.run();
        CHECK_FALSE(called);
        CHECK(handle->active());
        CHECK(handle->lock_until() == until);
    }
    CHECK_FALSE(service.storage().try_lock(lock_configuration("extend-bad", 1s)));  // still held
}

// The error code alone cannot name the value ("invalid argument"): the call throws
// configuration_error naming it instead.
TEST_CASE("adversarial: async_extend with at_most 0 reports an error naming the value") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    auto h = shedlock::asio::async_try_lock(service, lock_configuration("extend-named", 30s), net::use_future);
    io.run();
    auto handle = h.get();
    REQUIRE(handle);
    CHECK_THROWS_WITH(handle->async_extend(0ms, [](error_code, std::optional<lock_handle>) {}),
                      Catch::Contains("at_most") && Catch::Contains("0"));
    CHECK(handle->active());
}

TEST_CASE("adversarial: use_future on the io_context's only thread completes with a pooled service") {
    shedlock::register_all_async_drivers();
    net::io_context io;
    auto session = shedlock::asio::open_async_backend("memory:", io.get_executor());
    std::future_status status = std::future_status::deferred;
    net::post(io, [&] {
        // Blocking the only io thread: the pool completes the promise without it.
        auto f = shedlock::asio::async_try_lock(session->locks(), lock_configuration("future", 30s), net::use_future);
        status = f.wait_for(10s);
        if (status == std::future_status::ready) CHECK(f.get());
    });
    io.run();
    CHECK(status == std::future_status::ready);
}

// A used handle has no service left, so its callback without an associated executor of its own
// completes on boost::asio::system_executor: on a thread of Asio's hidden system pool, while the
// application's io_context is not even running. Wanted: the service's executor, as for every
// other completion (lock_ops.hpp: "the service's when it has none").
TEST_CASE("adversarial: async_unlock of a used handle completes on the service's executor, not a hidden thread") {
    net::io_context io;
    shedlock::test::scripted_lock_service service(io.get_executor());
    auto f = shedlock::asio::async_try_lock(service, lock_configuration("used", 30s), net::use_future);
    io.run();
    auto handle = f.get();
    REQUIRE(handle);
    auto moved = std::move(*handle);  // `handle` is now inactive
    std::atomic<bool> ran{false};
    std::thread::id ran_on;
    handle->async_unlock([&](error_code ec) {
        CHECK(ec == errc::lock_state);
        ran_on = std::this_thread::get_id();
        ran = true;
    });
    std::this_thread::sleep_for(200ms);
    CHECK_FALSE(ran.load());  // nobody runs the io_context yet
    io.restart();
    io.run();
    CHECK(ran.load());
    CHECK(ran_on == std::this_thread::get_id());
    moved.async_unlock([](error_code) {});
    io.restart();
    io.run();
}

TEST_CASE("adversarial: an error handler that throws on a failed background release escapes nowhere") {
    io_threads io(1);
    shedlock::test::scripted_lock_service service(io.io.get_executor());
    std::atomic<int> reported{0};
    service.set_error_handler([&](const std::string&, const std::exception&) {
        ++reported;
        throw std::runtime_error("error handler failed");
    });
    auto f = shedlock::asio::async_try_lock(service, lock_configuration("bad-release", 30s), net::use_future);
    auto handle = f.get();
    REQUIRE(handle);
    service.fail_with = shedlock::retry_advice::in_doubt;
    // Moved to another thread and destroyed there: the release fails, the handler throws.
    std::thread([h = std::move(*handle)]() mutable { auto gone = std::move(h); }).join();
    CHECK(wait_until([&] { return reported.load() == 1; }, 5s));
    service.fail_with.reset();
    auto again = shedlock::asio::async_try_lock(service, lock_configuration("after", 30s), net::use_future);
    auto after = again.get();
    CHECK(after);  // the io_context still runs
    if (after) after->async_unlock(net::use_future).get();  // before the service goes
}
