#include "executor_metrics.hpp"

namespace shedlock::detail {

constinit thread_local lock_lookup_cache last_lock_lookup;
constinit thread_local acquired_lock_cache last_acquired_lock;

namespace {

std::atomic<std::uint64_t> next_executor_metrics_id{1};

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

thread_lock_instruments& executor_metrics::look_up_for_this_thread(const std::string& name) {
    auto& cache = last_lock_lookup;
    const auto& [key, found] = lookup(name);
    // Everything that may throw first: a half-written entry must never match.
    auto& acquired = metric_access::this_thread_cell(*found.acquired);
    auto& released = metric_access::this_thread_cell(*found.released);
    cache.owner = 0;
    cache.name = &key;
    cache.instruments.shared = &found;
    cache.instruments.acquired = &acquired;
    cache.instruments.released = &released;
    cache.owner = id_;
    return cache.instruments;
}

const std::pair<const std::string, lock_instruments>& executor_metrics::lookup(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = locks_.find(name);
    if (it != locks_.end()) return *it;
    constexpr auto attempts = "shedlock_lock_attempts_total";
    constexpr auto attempts_help = "try_lock calls by lock and outcome (acquired, held elsewhere, backend error)";
    lock_instruments i;
    i.acquired = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "acquired"}});
    i.held_elsewhere = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "held"}});
    i.error = &registry_.counter(attempts, attempts_help, {{"lock", name}, {"outcome", "error"}});
    auto& held = registry_.gauge("shedlock_lock_held", "1 while this process holds the lock", {{"lock", name}});
    i.released = &metric_access::read_as_difference(held, *i.acquired);  // one increment per release
    return *locks_.emplace(name, i).first;
}

}  // namespace shedlock::detail
