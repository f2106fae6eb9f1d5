#include "executor_metrics.hpp"

namespace shedlock::detail {
namespace {

std::atomic<std::uint64_t> next_executor_metrics_id{1};

/// The last lock this thread looked up: a loop on one lock (or a task's own worker) skips the
/// mutex and the hash. Keyed by the owner's id and the name, so it is never stale.
struct lock_lookup_cache {
    std::uint64_t owner = 0;
    std::string name;
    const lock_instruments* instruments = nullptr;
};
thread_local lock_lookup_cache last_lock_lookup;

}  // namespace

executor_metrics::executor_metrics(metrics_registry& registry, const std::string& provider)
    : acquire_seconds(registry.histogram("shedlock_lock_acquire_seconds",
                                         "Time of one try_lock call (acquired, held or failed)",
                                         {{"provider", provider}},
                                         {0.0001, 0.001, 0.01, 0.1, 1, 10})),
      keepalive_extensions(registry.counter("shedlock_keepalive_extensions_total",
                                            "Leases extended by the keep-alive watchdog")),
      lock_lost(registry.counter("shedlock_lock_lost_total",
                                 "Runs whose lock was lost (a keep-alive extension failed)")),
      id_(next_executor_metrics_id.fetch_add(1)),
      registry_(registry) {}

const lock_instruments& executor_metrics::for_lock(const std::string& name) {
    auto& cache = last_lock_lookup;
    if (cache.owner == id_ && cache.name == name) return *cache.instruments;
    const auto& found = lookup(name);
    cache.owner = id_;
    cache.name = name;
    cache.instruments = &found;
    return found;
}

const lock_instruments& executor_metrics::lookup(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = locks_.find(name);
    if (it != locks_.end()) return it->second;
    constexpr auto attempts = "shedlock_lock_attempts_total";
    constexpr auto attempts_help = "try_lock calls by lock and outcome (acquired, held elsewhere, backend error)";
    lock_instruments i;
    i.acquired = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "acquired"}});
    i.held = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "held"}});
    i.error = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "error"}});
    i.held_here = &registry_.gauge("shedlock_lock_held", "1 while this process holds the lock", {{"lock", name}});
    i.held_here->follow(*i.acquired);  // acquisitions minus releases: one increment per release
    return locks_.emplace(name, i).first->second;
}

}  // namespace shedlock::detail
