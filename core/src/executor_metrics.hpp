#pragma once
// The executor's instruments, resolved once per lock name so a lock cycle costs one map lookup
// and a few relaxed atomic increments.

#include <shedlock/metrics.hpp>

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
    metric_gauge* held_here = nullptr;  ///< shedlock_lock_held: 1 while this process holds it
};

/// What a locking_task_executor updates: attempts per lock and outcome, acquire latency per
/// provider, keep-alive extensions and lost locks. Safe for concurrent use.
class executor_metrics {
public:
    executor_metrics(metrics_registry& registry, const std::string& provider);
    const lock_instruments& for_lock(const std::string& name);

    metric_histogram& acquire_seconds;
    metric_counter& keepalive_extensions;
    metric_counter& lock_lost;

private:
    const lock_instruments& lookup(const std::string& name);

    const std::uint64_t id_;  // never reused, unlike an address: keys the per-thread cache
    metrics_registry& registry_;
    std::mutex mutex_;
    std::unordered_map<std::string, lock_instruments> locks_;
};

}  // namespace shedlock::detail
