// The scheduler on the application's executor (shedlock::asio::scheduler) on the memory provider
// through pooled_lock_service, one thread running the io_context: ShedLock #5 (a suspended body
// keeps its lock until it returns), blocking and coroutine bodies side by side, stop with grace,
// the executor staying free while a blocking body runs, a lost lease waking the body.
#include "asio_scheduler_support.hpp"
#include "wait_for.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/error.hpp>
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>

using namespace shedlock;
using namespace std::chrono_literals;
using boost::asio::awaitable;
using boost::asio::use_awaitable;
using shedlock::test::wait;
using shedlock::test::wait_for;

namespace {

/// The application's io_context on one thread, the memory provider behind a pool, a run store.
struct harness {
    test::io_thread io;  // first: outlives everything that completes on it
    std::shared_ptr<providers::memory_lock_provider> locks = std::make_shared<providers::memory_lock_provider>();
    std::shared_ptr<asio::blocking_pool> pool = std::make_shared<asio::blocking_pool>(2);
    asio::pooled_lock_service service{locks, io.executor(), pool};
    memory_run_store runs;

    std::optional<timestamp> lock_until(const std::string& name) {
        for (const auto& record : locks->list_locks())
            if (record.name == name) return record.lock_until;
        return std::nullopt;
    }
    std::vector<run_record> records(const std::string& task) { return runs.last_runs(task, 100); }
};

}  // namespace

TEST_CASE("asio scheduler: a suspended coroutine body keeps its lock until it returns (ShedLock #5)",
          "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, returned{false};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("suspends", [&](task_context&) -> awaitable<void> {
        started = true;
        co_await wait(1500ms);  // ~7 keep-alive periods of 200 ms
        returned = true;
    }, fixed_rate(1h), lock_at_most_for(400ms), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    const auto first_until = h.lock_until("suspends");
    REQUIRE(first_until);
    auto last_until = *first_until;
    int probes = 0, intrusions = 0;
    while (!returned.load()) {
        // `returned` is set before the unlock: an acquisition after it is legitimate.
        if (auto other = h.locks->try_lock({"suspends", 50ms}); other && !returned.load()) ++intrusions;
        if (const auto until = h.lock_until("suspends")) last_until = std::max(last_until, *until);
        ++probes;
        std::this_thread::sleep_for(100ms);
    }
    CHECK(probes >= 5);
    CHECK(intrusions == 0);
    CHECK(last_until > *first_until + 300ms);  // extended by the keep-alive while the body slept
    CHECK(wait_for([&] { return h.locks->try_lock({"suspends", 50ms}).has_value(); }, 2s));  // released after it
    s.stop(2s);
    const auto records = h.records("suspends");
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::succeeded);
    CHECK_FALSE(records[0].lock_lost);
}

TEST_CASE("asio scheduler: without keep-alive the same suspended body loses its lock", "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, returned{false}, warned{false};
    scheduler_options options;
    options.warn = [&](const std::string& line) {
        const bool outran = line.find("longer than its lock_at_most_for") != std::string::npos;
        if (outran && line.find("\"suspends\" ran ") != std::string::npos) warned = true;
    };
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, options);
    s.add(asio::make_async_task("suspends", [&](task_context&) -> awaitable<void> {
        started = true;
        co_await wait(1000ms);
        returned = true;
    }, fixed_rate(1h), lock_at_most_for(300ms)));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    // Proves the test above can fail: the lease runs out under the body.
    CHECK(wait_for([&] { return h.locks->try_lock({"suspends", 50ms}).has_value(); }, 2s));
    CHECK(wait_for([&] { return returned.load(); }, 3s));
    s.stop(2s);
    CHECK(warned.load());  // as the blocking scheduler warns of a run outlasting its lease
}

TEST_CASE("asio scheduler: blocking and coroutine bodies in one scheduler", "[asio_scheduler]") {
    harness h;
    std::atomic<int> blocking_runs{0}, async_runs{0};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(make_task("blocking", [&](task_context&) {
        std::this_thread::sleep_for(30ms);
        ++blocking_runs;
    }, fixed_rate(150ms), lock_at_most_for("PT1M")));
    s.add(asio::make_async_task("coroutine", [&](task_context& ctx) -> awaitable<void> {
        co_await wait(30ms);
        ctx.count("ticks");
        ++async_runs;
    }, fixed_rate(150ms), lock_at_most_for("PT1M")));
    s.start();
    CHECK(wait_for([&] { return blocking_runs.load() >= 2 && async_runs.load() >= 2; }, 5s));
    s.stop(2s);
    CHECK(s.stats().firings >= 4);
    for (const std::string task : {"blocking", "coroutine"}) {
        const auto records = h.records(task);
        REQUIRE(records.size() >= 2);
        for (const auto& r : records) CHECK(r.outcome == run_outcome::succeeded);
    }
    CHECK(h.records("coroutine").front().counters.at("ticks") == 1);
}

TEST_CASE("asio scheduler: stop requests cancellation of a suspended body and waits for it", "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, woke_cancelled{false}, flag_seen{false};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("long", [&](task_context& ctx) -> awaitable<void> {
        started = true;
        const bool full = co_await asio::sleep_for(ctx, 30s);
        woke_cancelled = !full;
        flag_seen = ctx.cancellation_requested();
    }, fixed_rate(1h), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    CHECK_FALSE(h.locks->try_lock({"long", 50ms}).has_value());
    s.stop(5s);
    CHECK(woke_cancelled.load());
    CHECK(flag_seen.load());
    CHECK(h.locks->try_lock({"long", 50ms}).has_value());  // released before stop returned
    const auto records = h.records("long");
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::succeeded);
    CHECK_FALSE(s.running());
}

TEST_CASE("asio scheduler: a body ignoring cancellation past the grace is reported and still awaited",
          "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, returned{false};
    std::mutex warnings_mutex;
    std::vector<std::string> warnings;
    scheduler_options options;
    options.warn = [&](const std::string& line) {
        std::lock_guard lock(warnings_mutex);
        warnings.push_back(line);
    };
    asio::scheduler s(h.io.executor(), h.service, h.runs, nullptr, options);
    s.add(asio::make_async_task("stubborn", [&](task_context&) -> awaitable<void> {
        started = true;
        co_await wait(600ms);
        returned = true;
    }, fixed_rate(1h), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    s.stop(50ms);
    CHECK(returned.load());
    CHECK(h.records("stubborn").size() == 1);
    std::lock_guard lock(warnings_mutex);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("\"stubborn\" still running after the grace period"));
}

TEST_CASE("asio scheduler: a timer on the application's io_context keeps firing while a blocking body runs",
          "[asio_scheduler]") {
    harness h;
    std::atomic<bool> in_body{false}, body_done{false};
    std::atomic<int> ticks_during_body{0};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(make_task("blocking", [&](task_context&) {
        in_body = true;
        std::this_thread::sleep_for(1s);  // on the pool, never on the io_context's thread
        in_body = false;
        body_done = true;
    }, fixed_rate(1h), lock_at_most_for("PT1M")));
    boost::asio::steady_timer ticker(h.io.executor());
    std::function<void()> tick = [&] {
        ticker.expires_after(20ms);
        ticker.async_wait([&](boost::system::error_code ec) {
            if (ec || body_done.load()) return;
            if (in_body.load()) ++ticks_during_body;
            tick();
        });
    };
    boost::asio::post(h.io.executor(), tick);
    s.start();
    REQUIRE(wait_for([&] { return body_done.load(); }, 5s));
    s.stop(2s);
    CHECK(ticks_during_body.load() >= 10);  // ~50 possible: the thread was never held by the body
}

TEST_CASE("asio scheduler: a lease taken over wakes the body awaiting lease_lost", "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, woke{false}, lost_flag{false}, cancel_flag{false}, ctx_lost_flag{false};
    std::atomic<bool> ctx_lost_before{true}, tokens_agree{false};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("watched", [&](task_context& ctx) -> awaitable<void> {
        // task_context's own accessors report the asynchronous lock too (no blocking handle).
        tokens_agree = ctx.fencing_token().has_value() && ctx.fencing_token() == asio::fencing_token(ctx);
        ctx_lost_before = ctx.lock_lost();
        started = true;
        co_await asio::lease_lost(ctx);
        woke = true;
        lost_flag = asio::lock_lost(ctx);
        ctx_lost_flag = ctx.lock_lost();
        cancel_flag = ctx.cancellation_requested();
    }, fixed_rate(1h), lock_at_most_for(400ms), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    CHECK_FALSE(woke.load());
    REQUIRE(h.locks->force_release("watched"));  // an operator frees it ...
    auto thief = h.locks->try_lock({"watched", 10s});  // ... and another owner takes it
    REQUIRE(thief);
    CHECK(wait_for([&] { return woke.load(); }, 3s));
    CHECK(lost_flag.load());
    CHECK(ctx_lost_flag.load());
    CHECK_FALSE(ctx_lost_before.load());
    CHECK(tokens_agree.load());
    CHECK(cancel_flag.load());
    s.stop(2s);
    const auto records = h.records("watched");
    REQUIRE(records.size() == 1);
    CHECK(records[0].lock_lost);
    CHECK(h.locks->list_locks().at(0).locked_by == thief->lease().owner);  // the thief's lock was not released
}

TEST_CASE("asio scheduler: an idempotency key done before skips the body", "[asio_scheduler]") {
    harness h;
    auto store = std::make_shared<memory_idempotency_store>();
    asio::pooled_claim_service claims(store, h.io.executor(), h.pool);
    std::atomic<int> runs{0};
    asio::scheduler s(h.io.executor(), h.service, h.runs, &claims);
    s.add(asio::make_async_task("settle", [&](task_context& ctx) -> awaitable<void> {
        ++runs;
        ctx.set_result("attempt " + std::to_string(ctx.claim()->attempt));
        co_return;
    }, fixed_rate(100ms), lock_at_most_for("PT1M"), idempotency_key("settle:once")));
    s.start();
    REQUIRE(wait_for([&] { return h.records("settle").size() >= 3; }, 5s));
    s.stop(2s);
    CHECK(runs.load() == 1);
    const auto records = h.records("settle");  // newest first
    CHECK(records.back().outcome == run_outcome::succeeded);
    CHECK(records.front().outcome == run_outcome::skipped_done);
    CHECK(store->find("settle:once")->result == "attempt 1");
}

TEST_CASE("asio scheduler: validation as the blocking scheduler's start", "[asio_scheduler]") {
    harness h;
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("no body", asio::async_task_body{}, fixed_rate(1s), lock_at_most_for("PT1M")));
    s.add(asio::make_async_task("no lock time", [](task_context&) -> awaitable<void> { co_return; }, fixed_rate(1s)));
    s.add(asio::make_async_task("keyed", [](task_context&) -> awaitable<void> { co_return; }, fixed_rate(1s),
                                lock_at_most_for("PT1M"), idempotency_key("k")));
    try {
        s.start();
        FAIL("start() accepted bad tasks");
    } catch (const configuration_error& e) {
        const std::string text = e.what();
        CHECK_THAT(text, Catch::Contains("task \"no body\" (") && Catch::Contains("has no body"));
        CHECK_THAT(text, Catch::Contains("has no lock_at_most_for"));
        CHECK_THAT(text, Catch::Contains("but the scheduler has no claims store"));
    }
    CHECK_FALSE(s.running());
}

TEST_CASE("asio scheduler: a throwing coroutine body is recorded failed and its lock released", "[asio_scheduler]") {
    harness h;
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("throws", [](task_context&) -> awaitable<void> {
        co_await wait(10ms);
        throw std::runtime_error("no ledger today");
    }, fixed_rate(1h), lock_at_most_for("PT1M"), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return !h.records("throws").empty(); }, 3s));
    const auto r = h.records("throws").at(0);
    CHECK(r.outcome == run_outcome::failed);
    CHECK(r.message == "no ledger today");
    CHECK(h.locks->try_lock({"throws", 50ms}).has_value());
    s.stop(2s);
}

TEST_CASE("asio scheduler: async_stop from a coroutine on the executor, where stop() is refused", "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, woke{false};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("waits", [&](task_context& ctx) -> awaitable<void> {
        started = true;
        co_await asio::cancellation_requested(ctx);
        woke = true;
    }, fixed_rate(1h), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    std::promise<std::string> refused;
    std::promise<void> stopped;
    boost::asio::co_spawn(h.io.executor(), [&]() -> awaitable<void> {
        try {
            s.stop(1s);
            refused.set_value("");
        } catch (const configuration_error& e) {
            refused.set_value(e.what());
        }
        co_await s.async_stop(2s, use_awaitable);
        stopped.set_value();
    }, boost::asio::detached);
    CHECK_THAT(refused.get_future().get(), Catch::Contains("async_stop"));
    REQUIRE(stopped.get_future().wait_for(5s) == std::future_status::ready);
    CHECK(woke.load());
    CHECK(h.records("waits").size() == 1);
    CHECK_FALSE(s.running());
}

TEST_CASE("asio scheduler: an io_context run by two threads (one strand holds the state)", "[asio_scheduler]") {
    test::io_thread io(2);
    auto locks = std::make_shared<providers::memory_lock_provider>();
    asio::pooled_lock_service service(locks, io.executor(), std::make_shared<asio::blocking_pool>(2));
    memory_run_store runs;
    std::atomic<int> done{0};
    asio::scheduler s(io.executor(), service, runs);
    for (const std::string name : {"a", "b", "c"})
        s.add(asio::make_async_task(name, [&](task_context& ctx) -> awaitable<void> {
            co_await asio::sleep_for(ctx, 20ms);
            ++done;
        }, fixed_rate(40ms), lock_at_most_for(200ms), keep_alive()));
    s.add(make_task("blocking", [&](task_context&) { ++done; }, fixed_rate(40ms), lock_at_most_for("PT1M")));
    s.start();
    CHECK(wait_for([&] { return done.load() >= 20; }, 5s));
    s.stop(2s);
    for (const std::string name : {"a", "b", "c", "blocking"})
        for (const auto& r : runs.last_runs(name, 100))
            CHECK((r.outcome == run_outcome::succeeded || r.outcome == run_outcome::skipped_running));
}

TEST_CASE("asio scheduler: wait_for_lock waits for a lock held elsewhere, fixed_delay never overlaps",
          "[asio_scheduler]") {
    harness h;
    auto held = h.locks->try_lock({"patient", 10s});  // another instance holds it at the first firing
    REQUIRE(held);
    std::atomic<int> patient_runs{0}, delayed_runs{0}, inside{0}, overlaps{0};
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("patient", [&](task_context&) -> awaitable<void> {
        ++patient_runs;
        co_return;
    }, fixed_rate(1h), lock_at_most_for("PT1M"), wait_for_lock(5s)));
    s.add(asio::make_async_task("delayed", [&](task_context&) -> awaitable<void> {
        if (inside.fetch_add(1) != 0) ++overlaps;
        co_await wait(30ms);
        inside.fetch_sub(1);
        ++delayed_runs;
    }, fixed_delay(20ms), lock_at_most_for("PT1M")));
    s.start();
    std::this_thread::sleep_for(300ms);
    CHECK(patient_runs.load() == 0);  // still waiting
    held->unlock();
    CHECK(wait_for([&] { return patient_runs.load() == 1 && delayed_runs.load() >= 3; }, 5s));
    s.stop(2s);
    CHECK(overlaps.load() == 0);
    CHECK(h.records("patient").at(0).outcome == run_outcome::succeeded);
    for (const auto& r : h.records("delayed")) CHECK(r.outcome == run_outcome::succeeded);
}

TEST_CASE("asio scheduler: stop ends a wait for a lock held elsewhere", "[asio_scheduler]") {
    harness h;
    auto held = h.locks->try_lock({"patient", 30s});
    REQUIRE(held);
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(asio::make_async_task("patient", [](task_context&) -> awaitable<void> { co_return; }, fixed_rate(1h),
                                lock_at_most_for("PT1M"), wait_for_lock(20s)));
    s.start();
    REQUIRE(wait_for([&] { return s.stats().firings == 1; }, 3s));
    s.stop(10s);  // returns with the wait ended, not after 20 s (ctest's timeout would tell)
    const auto records = h.records("patient");
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::skipped_locked);
}

TEST_CASE("asio scheduler: destroyed on the executor's thread it stops in the background", "[asio_scheduler]") {
    harness h;
    std::atomic<bool> started{false}, returned{false}, warned{false};
    scheduler_options options;
    options.warn = [&](const std::string& line) {
        if (line.find("stopping in the background") != std::string::npos) warned = true;
    };
    options.destructor_grace = 2s;
    auto s = std::make_unique<asio::scheduler>(h.io.executor(), h.service, h.runs, nullptr, options);
    s->add(asio::make_async_task("orphan", [&](task_context& ctx) -> awaitable<void> {
        started = true;
        co_await asio::sleep_for(ctx, 30s);
        returned = true;
    }, fixed_rate(1h), lock_at_most_for("PT1M"), keep_alive()));
    s->start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    std::promise<void> destroyed;
    boost::asio::post(h.io.executor(), [&] {
        s.reset();  // must neither block this thread nor leave the firing without its state
        destroyed.set_value();
    });
    REQUIRE(destroyed.get_future().wait_for(5s) == std::future_status::ready);
    CHECK(warned.load());
    CHECK(wait_for([&] { return returned.load() && h.records("orphan").size() == 1; }, 5s));
    CHECK(wait_for([&] { return h.locks->try_lock({"orphan", 50ms}).has_value(); }, 5s));
}
