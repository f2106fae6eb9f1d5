// Keep-alive against a slow backend: 50 kept-alive executions whose extensions take 40 ms each,
// at most 4 at a time (a default-sized connection pool behind 20 ms of latency each way). Run one
// after another on the timer thread, a round of extensions took 2 s, longer than the 2 s lease,
// and every other timer waited behind it (seen failing so: locks lost, the probe seconds late).
// Run on the shared extension pool, a round takes ~0.5 s and the timer thread stays on time.
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/timer_service.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {

/// Leases by name on the steady clock; an extension waits for one of 4 connections, then 40 ms,
/// and fails when the lease has already run out (another instance could have taken the lock).
class slow_provider final : public lock_provider {
public:
    bool supports_fencing() const override { return false; }

private:
    std::optional<lease> do_try_lock(const lock_configuration& c, const std::string& owner) override {
        std::lock_guard lock(mutex_);
        auto& until = until_[c.name()];
        if (until > steady::now()) return std::nullopt;
        until = steady::now() + c.lock_at_most_for();
        return lease{c.name(), owner, {}, {}, {}, std::nullopt};
    }
    void do_unlock(const lease& held) override {
        std::lock_guard lock(mutex_);
        until_.erase(held.name);
    }
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds) override {
        std::unique_lock lock(mutex_);
        free_.wait(lock, [this] { return connections_ > 0; });
        --connections_;
        lock.unlock();
        std::this_thread::sleep_for(40ms);
        lock.lock();
        ++connections_;
        free_.notify_one();
        auto& until = until_[held.name];
        if (until < steady::now()) return std::nullopt;
        until = steady::now() + at_most;
        return held;
    }

    std::mutex mutex_;
    std::condition_variable free_;
    int connections_ = 4;
    std::map<std::string, steady::time_point> until_;
};

}  // namespace

TEST_CASE("keep-alive: slow extensions of 50 tasks keep every lock and leave the timer thread on time",
          "[executor][keep_alive]") {
    constexpr std::size_t tasks = 50;
    slow_provider locks;
    locking_task_executor executor(locks);
    std::vector<execution_result> results(tasks);
    std::vector<std::thread> callers;
    for (std::size_t i = 0; i < tasks; ++i)
        callers.emplace_back([&, i] {
            execute_options options;
            options.keep_alive = true;  // extended every second
            results[i] = executor.execute([](task_context&) { std::this_thread::sleep_for(3500ms); },
                                          lock_configuration{"slow-" + std::to_string(i), 2s}, options);
        });
    // A probe on the same timer thread, every 50 ms: how late is it called?
    std::atomic<long long> latest_ms{0};
    const auto end = steady::now() + 3400ms;
    while (steady::now() < end) {
        std::atomic<bool> called{false};
        const auto due = steady::now() + 50ms;
        shared_timer_service().call_after(50ms, [&] {
            latest_ms = std::max<long long>(latest_ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           steady::now() - due).count());
            called = true;
        });
        while (!called) std::this_thread::sleep_for(1ms);
    }
    for (auto& t : callers) t.join();
    CHECK(latest_ms.load() < 150);
    for (const auto& r : results) {
        CHECK(r.outcome == run_outcome::succeeded);
        CHECK_FALSE(r.lock_lost);
    }
}
