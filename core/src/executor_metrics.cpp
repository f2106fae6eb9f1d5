#include "executor_metrics.hpp"

namespace shedlock::detail {

executor_metrics::executor_metrics(metrics_registry& registry, const std::string& provider)
    : acquire_seconds(registry.histogram("shedlock_lock_acquire_seconds",
                                         "Time of one try_lock call (acquired, held or failed)",
                                         {{"provider", provider}},
                                         {0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5})),
      keepalive_extensions(registry.counter("shedlock_keepalive_extensions_total",
                                            "Leases extended by the keep-alive watchdog")),
      lock_lost(registry.counter("shedlock_lock_lost_total",
                                 "Runs whose lock was lost (a keep-alive extension failed)")),
      registry_(registry) {}

const lock_instruments& executor_metrics::for_lock(const std::string& name) {
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
    return locks_.emplace(name, i).first->second;
}

}  // namespace shedlock::detail
