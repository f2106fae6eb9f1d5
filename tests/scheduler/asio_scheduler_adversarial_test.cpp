// Adversarial use of shedlock::asio::scheduler (issue 23 review): a run store that throws what is
// not a std::exception, children of a body outliving it, 500 tasks due at once on one thread, a
// body blocking the executor thread, io_context stop and restart, destruction on an executor thread.
#include "asio_scheduler_support.hpp"
#include "wait_for.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <mutex>

using namespace shedlock;
using namespace std::chrono_literals;
using boost::asio::awaitable;
using shedlock::test::wait;
using shedlock::test::wait_for;

namespace {

/// A run store whose append throws a value that is not a std::exception.
class odd_throwing_store final : public run_store {
public:
    void append(const run_record&) override { throw 42; }
    std::vector<run_record> last_runs(const std::string&, std::size_t) override { return {}; }
    std::vector<run_record> last_runs_of_instance(const std::string&, const std::string&, std::size_t) override {
        return {};
    }
    std::vector<std::string> tasks() override { return {}; }
    const run_retention& retention() const noexcept override { return retention_; }

private:
    run_retention retention_;
};

struct rig {
    test::io_thread io;
    std::shared_ptr<providers::memory_lock_provider> locks = std::make_shared<providers::memory_lock_provider>();
    std::shared_ptr<asio::blocking_pool> pool = std::make_shared<asio::blocking_pool>(2);
    asio::pooled_lock_service service{locks, io.executor(), pool};
    memory_run_store runs;
    std::mutex mutex;
    std::vector<std::string> warnings;

    scheduler_options options() {
        scheduler_options o;
        o.warn = [this](const std::string& line) {
            const std::lock_guard guard(mutex);
            warnings.push_back(line);
        };
        return o;
    }
    bool warned(const std::string& part) {
        const std::lock_guard guard(mutex);
        for (const auto& w : warnings)
            if (w.find(part) != std::string::npos) return true;
        return false;
    }
    bool free(const std::string& name) { return locks->try_lock({name, 50ms}).has_value(); }
};

}  // namespace

// A non-std exception from append escapes record() and the job wrapper (both catch
// std::exception only): the job count never returns to zero and stop never completes.
TEST_CASE("asio scheduler adversarial: a run store throwing a non-std exception neither hangs stop nor "
          "goes unreported", "[asio_scheduler]") {
    rig h;
    odd_throwing_store store;
    std::atomic<int> ran{0};
    asio::scheduler s(h.io.executor(), h.service, store, nullptr, h.options());
    s.add(asio::make_async_task("odd-store", [&](task_context&) -> awaitable<void> {
        ++ran;
        co_return;
    }, fixed_rate(100ms), lock_at_most_for(10s)));
    s.start();
    REQUIRE(wait_for([&] { return ran.load() >= 1; }, 5s));
    std::this_thread::sleep_for(300ms);
    CHECK(ran.load() >= 2);  // later firings are not all skipped as "still running"
    auto stopped = s.async_stop(1s, boost::asio::use_future);
    const bool returned = stopped.wait_for(10s) == std::future_status::ready;
    CHECK(returned);
    CHECK(h.warned("\"odd-store\""));
    if (!returned) h.io.io().stop();  // let the io thread end instead of hanging the suite
}

// A child the body co_spawned on the strand waits on sleep_for(ctx) and wakes after the firing's
// state is gone: it must neither touch freed memory nor fail silently.
TEST_CASE("asio scheduler adversarial: a child coroutine outliving its body may still call the task signals",
          "[asio_scheduler]") {
    rig h;
    std::atomic<int> outcome{0};  // 1: signals answered, 2: configuration_error
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, h.options());
    s.add(asio::make_async_task("parent", [&](task_context& ctx) -> awaitable<void> {
        auto ex = co_await boost::asio::this_coro::executor;
        boost::asio::co_spawn(ex, [&ctx, &outcome]() -> awaitable<void> {
            co_await asio::sleep_for(ctx, 300ms);  // the parent has returned meanwhile
            try {
                (void)asio::lock_lost(ctx);
                outcome = 1;
            } catch (const configuration_error&) {
                outcome = 2;
            }
        }, boost::asio::detached);
        co_return;
    }, fixed_rate(1h), lock_at_most_for(10s)));
    s.start();
    REQUIRE(wait_for([&] { return outcome.load() != 0; }, 5s));
    CHECK(outcome.load() == 2);
    s.stop(2s);
}

TEST_CASE("asio scheduler adversarial: 500 tasks due at the same time on one thread all run and release",
          "[asio_scheduler]") {
    rig h;
    std::atomic<int> ran{0};
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, h.options());
    for (int i = 0; i < 500; ++i)
        s.add(asio::make_async_task("burst-" + std::to_string(i), [&](task_context&) -> awaitable<void> {
            co_await wait(20ms);
            ++ran;
        }, fixed_rate(1h), lock_at_most_for(30s)));
    s.start();
    REQUIRE(wait_for([&] { return ran.load() == 500; }, 60s));
    s.stop(5s);
    CHECK(h.free("burst-0"));
    CHECK(h.free("burst-499"));
    CHECK(h.runs.last_runs("burst-250", 5).size() == 1);
}

// Documented misuse: the body blocks its executor thread past lock_at_most_for; the keep-alive
// cannot run meanwhile. Afterwards the scheduler must still end the firing and free the lock.
TEST_CASE("asio scheduler adversarial: a body blocking the executor thread past its lease still ends cleanly",
          "[asio_scheduler]") {
    rig h;
    std::atomic<bool> done{false};
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, h.options());
    s.add(asio::make_async_task("blocker", [&](task_context&) -> awaitable<void> {
        std::this_thread::sleep_for(700ms);  // misuse: blocks the only io thread
        done = true;
        co_return;
    }, fixed_rate(1h), lock_at_most_for(300ms), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return done.load(); }, 5s));
    REQUIRE(wait_for([&] { return h.runs.last_runs("blocker", 5).size() == 1; }, 5s));
    CHECK(h.free("blocker"));
    s.stop(2s);
}

TEST_CASE("asio scheduler adversarial: io_context stop and restart resumes the firings", "[asio_scheduler]") {
    boost::asio::io_context io;
    auto locks = std::make_shared<providers::memory_lock_provider>();
    asio::pooled_lock_service service{locks, io.get_executor(), std::make_shared<asio::blocking_pool>(1)};
    memory_run_store runs;
    std::atomic<int> ran{0};
    asio::scheduler s(io.get_executor(), service, runs);
    s.add(asio::make_async_task("restart", [&](task_context&) -> awaitable<void> {
        ++ran;
        co_return;
    }, fixed_rate(50ms), lock_at_most_for(10s)));
    s.start();
    std::thread first([&] { io.run_for(300ms); });
    first.join();
    const int before = ran.load();
    CHECK(before >= 1);
    io.restart();
    auto work = boost::asio::make_work_guard(io);
    std::thread second([&] { io.run(); });
    CHECK(wait_for([&] { return ran.load() >= before + 3; }, 5s));
    s.stop(2s);
    work.reset();
    second.join();
    CHECK(locks->try_lock({"restart", 50ms}));
}

TEST_CASE("asio scheduler adversarial: destroyed on its executor thread while a body is suspended",
          "[asio_scheduler]") {
    rig h;
    std::atomic<bool> started{false}, returned{false};
    auto s = std::make_unique<asio::scheduler>(h.io.executor(), h.service, h.runs, nullptr, h.options());
    s->add(asio::make_async_task("orphaned", [&](task_context& ctx) -> awaitable<void> {
        started = true;
        co_await asio::sleep_for(ctx, 400ms);
        returned = true;
    }, fixed_rate(1h), lock_at_most_for(10s)));
    s->start();
    REQUIRE(wait_for([&] { return started.load(); }, 5s));
    std::promise<void> destroyed;
    boost::asio::post(h.io.io(), [&] {
        s.reset();
        destroyed.set_value();
    });
    destroyed.get_future().wait();
    CHECK(wait_for([&] { return returned.load(); }, 5s));
    CHECK(wait_for([&] { return h.free("orphaned"); }, 5s));
    // The orphaned firing ends by recording its run: the store must outlive that (the rig's does
    // once the record is there; ThreadSanitizer caught the rig destroyed while it appended).
    CHECK(wait_for([&] { return !h.runs.last_runs("orphaned", 1).empty(); }, 5s));
    CHECK(h.warned("destroyed on a thread of its executor"));
}

TEST_CASE("asio scheduler adversarial: start twice and add after start are refused by name", "[asio_scheduler]") {
    rig h;
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, h.options());
    s.add(asio::make_async_task("once", [](task_context&) -> awaitable<void> { co_return; }, fixed_rate(1h),
                                lock_at_most_for(10s)));
    s.start();
    CHECK_THROWS_WITH(s.start(), Catch::Contains("already started"));
    CHECK_THROWS_WITH(s.add(asio::make_async_task("late", [](task_context&) -> awaitable<void> { co_return; },
                                                  fixed_rate(1h), lock_at_most_for(10s))),
                      Catch::Contains("\"late\" added after start()"));
    s.stop(2s);
    s.stop(2s);  // idempotent
}

// stop() lands at varying points of firings every 10 ms: it returns, no firing starts after it,
// the lock is free and every record has a final outcome.
TEST_CASE("asio scheduler adversarial: stop racing with firings", "[asio_scheduler]") {
    rig h;
    for (int round = 0; round < 20; ++round) {
        std::atomic<int> ran{0};
        const std::string name = "race-" + std::to_string(round);
        asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, h.options());
        s.add(asio::make_async_task(name, [&](task_context& ctx) -> awaitable<void> {
            ++ran;
            co_await asio::sleep_for(ctx, std::chrono::milliseconds(round % 7));
        }, fixed_rate(10ms), lock_at_most_for(10s), keep_alive()));
        s.start();
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + 3 * round));
        s.stop(1s);
        const int at_stop = ran.load();
        std::this_thread::sleep_for(30ms);
        CHECK(ran.load() == at_stop);
        CHECK(h.free(name));
        for (const auto& r : h.runs.last_runs(name, 1000))
            CHECK((r.outcome == run_outcome::succeeded || r.outcome == run_outcome::skipped_running));
    }
}
