// The asio scheduler's keep-alive against a backend whose extensions fail: it retries while the
// lease still runs, then counts the lease lost (lock_lost, cancellation, lease_lost wakes); the
// release is still attempted. A lock_service wrapper fails start_extend; the rest is the memory
// provider on a pool.
#include "asio_scheduler_support.hpp"
#include "wait_for.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <boost/asio/post.hpp>

#include <catch2/catch.hpp>

#include <atomic>

using namespace shedlock;
using namespace std::chrono_literals;
using boost::asio::awaitable;
using shedlock::test::wait_for;

namespace {

/// `inner` with every extension failing (backend unreachable), completed later as a service must.
class failing_extensions final : public asio::lock_service {
public:
    explicit failing_extensions(asio::lock_service& inner) : inner_(inner) {}

    executor_type get_executor() const override { return inner_.get_executor(); }
    bool supports_fencing() const override { return inner_.supports_fencing(); }
    const shedlock::clock& clock() const noexcept override { return inner_.clock(); }
    std::string describe() const override { return "extensions fail"; }
    void start_try_lock(const lock_configuration& config, std::string owner,
                        asio::completion<std::optional<lease>> done) override {
        inner_.start_try_lock(config, std::move(owner), std::move(done));
    }
    void start_unlock(lease held, asio::void_completion done) override {
        ++unlocks;
        inner_.start_unlock(std::move(held), std::move(done));
    }
    void start_extend(lease, std::chrono::milliseconds, std::chrono::milliseconds,
                      asio::completion<std::optional<lease>> done) override {
        ++extensions;
        boost::asio::post(get_executor(), [done = std::move(done)]() mutable {
            done(std::make_exception_ptr(storage_error(storage_category::unavailable, "backend unreachable")),
                 std::nullopt);
        });
    }

    std::atomic<int> extensions{0};
    std::atomic<int> unlocks{0};

private:
    asio::lock_service& inner_;
};

}  // namespace

TEST_CASE("asio scheduler: extensions failing past lock_until lose the lease and wake the body",
          "[asio_scheduler][keep_alive]") {
    test::io_thread io;
    auto locks = std::make_shared<providers::memory_lock_provider>();
    asio::pooled_lock_service pooled(locks, io.executor(), std::make_shared<asio::blocking_pool>(2));
    failing_extensions service(pooled);
    memory_run_store runs;
    std::atomic<bool> started{false}, woke{false}, cancelled{false};
    scheduler_options quiet;
    quiet.warn = [](const std::string&) {};
    asio::scheduler s(io.executor(), service, runs, nullptr, quiet);
    s.add(asio::make_async_task("flaky", [&](task_context& ctx) -> awaitable<void> {
        started = true;
        co_await asio::lease_lost(ctx);
        woke = true;
        cancelled = ctx.cancellation_requested();
    }, fixed_rate(1h), lock_at_most_for(400ms), keep_alive()));
    s.start();
    REQUIRE(wait_for([&] { return started.load(); }, 3s));
    REQUIRE(wait_for([&] { return woke.load(); }, 5s));
    CHECK(cancelled.load());
    CHECK(service.extensions.load() >= 2);  // retried while the lease still ran
    s.stop(2s);
    const auto records = runs.last_runs("flaky", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].lock_lost);
    CHECK(records[0].outcome == run_outcome::succeeded);
    CHECK(service.unlocks.load() == 1);  // the handle was kept: the release is still attempted
}
