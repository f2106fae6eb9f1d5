#pragma once
// The executor's instruments, resolved once per lock name so a lock cycle costs a per-thread cache
// hit and two relaxed atomic increments (attempts and releases); the acquire time is sampled when
// try_lock is fast (see time_this_call).

#include <shedlock/metrics.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace shedlock::detail {

/// The series of one lock name.
struct lock_instruments {
    metric_counter* acquired = nullptr;
    metric_counter* held = nullptr;
    metric_counter* error = nullptr;
    /// shedlock_lock_held: follows `acquired` minus the releases counted by release().
    metric_gauge* held_here = nullptr;
};

/// What a locking_task_executor updates: attempts per lock and outcome, acquire latency per
/// provider, keep-alive extensions and lost locks. Safe for concurrent use.
class executor_metrics {
public:
    executor_metrics(metrics_registry& registry, const std::string& provider);
    const lock_instruments& for_lock(const std::string& name);

    /// Whether to time this try_lock call. Every call while try_lock is slow (the last timed call
    /// took >= slow_acquire_seconds: a database, where two clock reads are noise); one call in
    /// fast_sample_every while it is fast (in memory, where two clock reads of ~30 ns each would
    /// be a fifth of the cycle). The countdown is racy across threads by design: relaxed loads and
    /// stores, no read-modify-write; a lost update only shifts which call is timed.
    bool time_this_call() noexcept {
        if (!fast_.load(std::memory_order_relaxed)) return true;
        const auto left = countdown_.load(std::memory_order_relaxed);
        countdown_.store(left == 0 ? fast_sample_every - 1 : left - 1, std::memory_order_relaxed);
        return left == 0;
    }
    /// Records a timed call and whether try_lock is fast.
    void observe_acquire(double seconds) noexcept {
        acquire_seconds.observe(seconds);
        fast_.store(seconds < slow_acquire_seconds, std::memory_order_relaxed);
    }
    static constexpr double slow_acquire_seconds = 10e-6;
    static constexpr std::uint32_t fast_sample_every = 64;

    metric_histogram& acquire_seconds;
    metric_counter& keepalive_extensions;
    metric_counter& lock_lost;

private:
    const lock_instruments& lookup(const std::string& name);

    const std::uint64_t id_;  // never reused, unlike an address: keys the per-thread cache
    metrics_registry& registry_;
    std::mutex mutex_;
    std::unordered_map<std::string, lock_instruments> locks_;
    std::atomic<bool> fast_{false};
    std::atomic<std::uint32_t> countdown_{0};
};

}  // namespace shedlock::detail
