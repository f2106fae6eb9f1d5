// The asio scheduler on a SQLite file (blocking provider on a pool, pooled_lock_service): ShedLock
// #5 against a second connection to the file, and two schedulers on two io_contexts (one with a
// coroutine body, one with a blocking body) never running the task at the same time.
#include "asio_scheduler_support.hpp"
#include "test_env.hpp"
#include "wait_for.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>

using namespace shedlock;
using namespace std::chrono_literals;
using boost::asio::awaitable;
using boost::asio::use_awaitable;
using shedlock::test::wait;
using shedlock::test::wait_for;

namespace {

std::string fresh_file(const std::string& name) {
    const auto path = std::filesystem::path(test::scratch_dir()) / name;
    std::filesystem::remove(path);
    return path.string();
}

providers::sqlite_options lock_options(const std::string& path) {
    providers::sqlite_options o;
    o.path = path;
    o.create_schema_if_missing = true;
    return o;
}

providers::sqlite_run_options run_options(const std::string& path) {
    providers::sqlite_run_options o;
    o.path = path;
    o.create_schema_if_missing = true;
    return o;
}

/// One instance: its io_context thread, its own connections to the file, a pooled service.
struct instance {
    explicit instance(const std::string& path)
        : locks(providers::make_sqlite_lock_provider(lock_options(path))),
          runs(providers::make_sqlite_run_store(run_options(path))) {}

    test::io_thread io;
    std::shared_ptr<lock_provider> locks;
    std::unique_ptr<run_store> runs;
    std::shared_ptr<asio::blocking_pool> pool = std::make_shared<asio::blocking_pool>(2);
    asio::pooled_lock_service service{locks, io.executor(), pool};
};

}  // namespace

TEST_CASE("asio scheduler on SQLite: a suspended coroutine body keeps its lock until it returns (ShedLock #5)",
          "[asio_scheduler][sqlite]") {
    const auto path = fresh_file("shedlock5.db");
    instance one(path);
    auto other = providers::make_sqlite_lock_provider(lock_options(path));  // another instance's connection
    std::atomic<bool> started{false}, returned{false};
    asio::scheduler s(one.io.executor(), one.service, *one.runs);
    s.add(asio::make_async_task("suspends", [&](task_context&) -> awaitable<void> {
        started = true;
        co_await wait(1500ms);
        returned = true;
    }, fixed_rate(1h), lock_at_most_for(400ms), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    int probes = 0, intrusions = 0;
    while (!returned.load()) {
        if (auto got = other->try_lock({"suspends", 50ms}); got && !returned.load()) ++intrusions;
        ++probes;
        std::this_thread::sleep_for(100ms);
    }
    CHECK(probes >= 5);
    CHECK(intrusions == 0);
    CHECK(wait_for([&] { return other->try_lock({"suspends", 50ms}).has_value(); }, 2s));
    s.stop(2s);
    const auto records = one.runs->last_runs("suspends", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == run_outcome::succeeded);
}

TEST_CASE("asio scheduler on SQLite: two schedulers on two io_contexts never overlap", "[asio_scheduler][sqlite]") {
    const auto path = fresh_file("exclusion.db");
    instance a(path), b(path);
    std::atomic<int> inside{0}, overlaps{0}, bodies{0};
    const auto enter = [&] {
        if (inside.fetch_add(1) != 0) ++overlaps;
    };
    const auto leave = [&] {
        inside.fetch_sub(1);
        ++bodies;
    };
    asio::scheduler sa(a.io.executor(), a.service, *a.runs);
    sa.add(asio::make_async_task("shared", [&](task_context&) -> awaitable<void> {
        enter();
        co_await wait(60ms);
        leave();
    }, fixed_rate(50ms), lock_at_most_for("PT1M"), misfire_grace(5s)));
    asio::scheduler sb(b.io.executor(), b.service, *b.runs);
    sb.add(make_task("shared", [&](task_context&) {
        enter();
        std::this_thread::sleep_for(60ms);
        leave();
    }, fixed_rate(50ms), lock_at_most_for("PT1M"), misfire_grace(5s)));
    sa.start();
    sb.start();
    REQUIRE(wait_for([&] { return bodies.load() >= 8; }, 10s));
    sa.stop(2s);
    sb.stop(2s);
    CHECK(overlaps.load() == 0);
    std::size_t succeeded = 0, skipped = 0;
    for (const auto& r : a.runs->last_runs("shared", 1000)) {
        if (r.outcome == run_outcome::succeeded) ++succeeded;
        if (r.outcome == run_outcome::skipped_locked || r.outcome == run_outcome::skipped_running) ++skipped;
    }
    CHECK(succeeded == static_cast<std::size_t>(bodies.load()));  // one store: both instances' records
    CHECK(skipped > 0);
}
