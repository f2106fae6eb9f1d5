// Bursts: firings due at one instant are spread over the workers, and a lock call that blocks
// holds back neither the rest of its burst nor later firings. No timing assertions: the waits
// below only bound how long a broken scheduler takes to fail.
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>
#include <set>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

/// How long a body or lock call waits for the others before it gives up (and the test fails).
constexpr auto patience = 30s;

/// Waits until `n` parties arrived, or `patience` passed (then every later wait gives up at once,
/// so a broken scheduler fails in one `patience`); says which.
class rendezvous {
public:
    explicit rendezvous(int n) : n_(n) {}
    bool arrive_and_wait() {
        arrive();
        return wait();
    }
    void arrive() {
        std::lock_guard lock(mutex_);
        if (++arrived_ == n_) all_.notify_all();
    }
    bool wait() {
        std::unique_lock lock(mutex_);
        if (all_.wait_for(lock, gave_up_ ? 0s : patience, [this] { return arrived_ >= n_; })) return true;
        gave_up_ = true;
        return false;
    }

private:
    std::mutex mutex_;
    std::condition_variable all_;
    const int n_;
    int arrived_ = 0;
    bool gave_up_ = false;
};

/// Grants every lock at once, except that acquiring `slow_name` first waits at `gate`.
class gated_provider final : public lock_provider, public lock_inspector {
public:
    gated_provider(std::string slow_name, rendezvous& gate) : slow_name_(std::move(slow_name)), gate_(gate) {}
    bool supports_fencing() const override { return false; }
    lock_inspector* inspector() noexcept override { return this; }
    std::vector<lock_record> list_locks() override { return {}; }
    timestamp lock_time_now() override { return clock().now(); }
    bool slow_call_was_let_through() const { return let_through_.load(); }

private:
    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override {
        if (config.name() == slow_name_) let_through_ = gate_.wait();
        const auto now = clock().now();
        return lease{config.name(), owner, now, now + config.lock_at_most_for(), now, std::nullopt, {}};
    }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }

    void do_force_release(const lock_record&, timestamp) override {}
    std::string slow_name_;
    rendezvous& gate_;
    std::atomic<bool> let_through_{false};
};

scheduler_options workers(std::size_t n) {
    scheduler_options o;
    o.worker_threads = n;
    return o;
}

}  // namespace

TEST_CASE("burst: firings due at one instant run on every worker at once", "[scheduler][burst]") {
    constexpr int n = 4;
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store, workers(n));
    rendezvous all_started(n);
    std::atomic<int> met{0}, runs{0};
    for (int i = 0; i < n; ++i)  // fixed_rate from start(): every task's first firing is start()'s instant
        s.add(make_task("burst-" + std::to_string(i), [&](task_context&) {
            met += all_started.arrive_and_wait();  // only if all n bodies ran at the same time
            ++runs;
        }, fixed_rate(1h), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() == n; }, patience + 10s));
    s.stop(1s);
    CHECK(met.load() == n);
    std::set<timestamp> instants;
    for (int i = 0; i < n; ++i) instants.insert(store.last_runs("burst-" + std::to_string(i), 1).at(0).scheduled_at);
    CHECK(instants.size() == 1);  // they were one burst
    CHECK(s.stats().firings == static_cast<std::uint64_t>(n));
}

TEST_CASE("burst: a blocked lock call holds back neither its burst nor later firings", "[scheduler][burst]") {
    // Two workers. "slow" is first in its burst and its lock call waits until every other task
    // ran: five due at the same instant, one 100 ms later. They can only run if the other worker
    // takes them, and the timer thread dispatches the later one, while that lock call waits.
    constexpr int others = 6;
    rendezvous others_ran(others);
    gated_provider locks("slow", others_ran);
    memory_run_store store;
    scheduler s(locks, store, workers(2));
    std::atomic<int> runs{0};
    s.add(make_task("slow", [&](task_context&) { ++runs; }, fixed_rate(1h), lock_at_most_for("PT1M")));
    for (int i = 0; i < others - 1; ++i)
        s.add(make_task("same-instant-" + std::to_string(i), [&](task_context&) {
            ++runs;
            others_ran.arrive();
        }, fixed_rate(1h), lock_at_most_for("PT1M")));
    s.add(make_task("later", [&](task_context&) {
        ++runs;
        others_ran.arrive();
    }, fixed_rate(1h, 100ms), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() == others + 1; }, patience + 10s));
    s.stop(1s);
    CHECK(locks.slow_call_was_let_through());
    const auto slow = store.last_runs("slow", 1).at(0);
    CHECK(slow.outcome == run_outcome::succeeded);
    CHECK(slow.scheduled_at == store.last_runs("same-instant-0", 1).at(0).scheduled_at);
}

TEST_CASE("burst: a firing never starts before its scheduled time", "[scheduler][burst]") {
    // Tasks 1 ms apart: a wake-up for one instant must not take the next instant's firings with it.
    constexpr int n = 20;
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0}, early{0};
    for (int i = 0; i < n; ++i)
        s.add(make_task("phase-" + std::to_string(i), [&](task_context& ctx) {
            if (std::chrono::system_clock::now() < std::chrono::system_clock::time_point{ctx.scheduled_at()}) ++early;
            ++runs;
        }, aligned_rate(200ms, std::chrono::milliseconds{i}), lock_at_most_for("PT1M")));
    s.start();
    REQUIRE(wait_for([&] { return runs.load() >= 3 * n; }, patience));
    s.stop(1s);
    CHECK(early.load() == 0);
}
