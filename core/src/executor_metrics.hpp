#pragma once
// The executor's instruments, resolved once per lock name and thread, so a lock cycle costs a
// per-thread cache hit and two increments of the thread's own counter cells (attempts and
// releases: a plain load and store each); the acquire time is sampled by the executor when
// try_lock is fast (detail::acquire_sampler).

#include "metric_thread_cells.hpp"

#include <shedlock/executor_listener.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace shedlock::detail {

/// The series of one lock name.
struct lock_instruments {
    metric_counter* acquired = nullptr;
    metric_counter* held_elsewhere = nullptr;
    metric_counter* error = nullptr;
    /// shedlock_lock_held reads `acquired` minus `released` (metric_access::read_as_difference).
    metric_counter* released = nullptr;
};

/// A lock's instruments as one thread uses them: the hot counters through the thread's cells.
struct thread_lock_instruments {
    const lock_instruments* shared = nullptr;
    counter_thread_cell* acquired = nullptr;
    counter_thread_cell* released = nullptr;
};

/// The last lock this thread looked up: a loop on one lock (or a task's own worker) skips the
/// mutex, the hash and the cell lookups. Keyed by the owner's id (never reused, so a match means
/// the owner is alive) and the name, so it is never stale. Constant-initialized and trivially
/// destructible, so reading this thread's copy is one TLS access with no first-use guard.
struct lock_lookup_cache {
    std::uint64_t owner = 0;
    const std::string* name = nullptr;  // the key in the owner's map: valid while the owner is
    thread_lock_instruments instruments;
};
extern constinit thread_local lock_lookup_cache last_lock_lookup;

/// The release cell of the execution this thread acquired last, keyed by the metrics' id and the
/// address of its lock configuration, so its release needs no second lookup. Sound because one
/// execution's acquire and release run on one thread, and an execution nested in between uses
/// another configuration object alive at the same time (another address): its acquisition
/// replaces this entry and the outer release falls back to the lookup.
struct acquired_lock_cache {
    std::uint64_t owner = 0;
    const lock_configuration* config = nullptr;
    counter_thread_cell* released = nullptr;
};
extern constinit thread_local acquired_lock_cache last_acquired_lock;

/// a == b for the per-thread cache's lock names, inline with word loads: they are short, and a
/// libc memcmp call costs more than the comparison (bench/metrics_overhead).
inline bool lock_names_equal(const std::string& a, const std::string& b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    const auto word_at = [](const char* p, auto word) {
        std::memcpy(&word, p, sizeof word);
        return word;
    };
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (word_at(x + i, std::uint64_t{}) != word_at(y + i, std::uint64_t{})) return false;
        return word_at(x + n - 8, std::uint64_t{}) == word_at(y + n - 8, std::uint64_t{});  // the last 8, overlapping
    }
    if (n >= 4)
        return word_at(x, std::uint32_t{}) == word_at(y, std::uint32_t{}) &&
               word_at(x + n - 4, std::uint32_t{}) == word_at(y + n - 4, std::uint32_t{});
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i]) return false;
    return true;
}

/// What a locking_task_executor counts, as one of its listeners (always the first): attempts per
/// lock and outcome, acquire latency per provider, lock_held, lost locks. The executor calls it
/// through its own type (final: no virtual call on the hot path). Keep-alive extensions are
/// counted by the watchdog itself (no listener event). Safe for concurrent use.
class executor_metrics final : public executor_listener {
public:
    executor_metrics(metrics_registry& registry, const std::string& provider);
    /// This thread's instruments of lock `name` (valid until this thread asks for another lock).
    /// Inline: the cache hit is the executor's hot path.
    [[gnu::always_inline]] thread_lock_instruments& for_lock(const std::string& name) {
        auto& cache = last_lock_lookup;
        if (cache.owner == id_ && lock_names_equal(*cache.name, name)) return cache.instruments;
        return look_up_for_this_thread(name);
    }

    void on_acquired(const execution_event& e) override { acquired(e.config, e.acquire_time); }
    void on_skipped(const skipped_event& e) override {
        if (e.attempt == lock_attempt::acquired) return ended(e.config, e.attempt);
        if (e.attempt == lock_attempt::held_elsewhere || e.attempt == lock_attempt::failed) refused(e);
    }
    void on_lock_lost(const lock_lost_event&) override { lock_lost.inc(); }
    void on_finished(const finished_event& e) override { ended(e.config, e.attempt); }

    // The hooks' work, non-virtual and inline: the executor calls these directly (its hot path;
    // always_inline: a call there cost more instructions than the work, bench/listener_overhead).
    [[gnu::always_inline]] void acquired(const lock_configuration& config,
                                         const std::optional<std::chrono::nanoseconds>& acquire_time) {
        auto& mine = for_lock(config.metrics_name());
        observe_acquire(acquire_time);
        mine.acquired->inc();  // also raises lock_held
        auto& pending = last_acquired_lock;
        pending.owner = id_;
        pending.config = &config;
        pending.released = mine.released;
    }
    /// try_lock found the lock held, or failed.
    void refused(const execution_event& e) {
        auto& mine = for_lock(e.config.metrics_name());
        observe_acquire(e.acquire_time);
        (e.attempt == lock_attempt::failed ? mine.shared->error : mine.shared->held_elsewhere)->inc();
    }
    /// What on_finished and on_skipped do for an execution past try_lock: count the release of a
    /// lock it acquired (a re-entrant one released nothing). The executor calls it before the
    /// unlock, so another instance's acquisition never meets this one's still counted: the gauge
    /// may read 0 a moment early, never 2 for one lock.
    [[gnu::always_inline]] void ended(const lock_configuration& config, lock_attempt attempt) {
        if (attempt != lock_attempt::acquired) return;
        auto& pending = last_acquired_lock;
        if (pending.owner == id_ && pending.config == &config) {
            pending.owner = 0;
            return pending.released->inc();
        }
        for_lock(config.metrics_name()).released->inc();
    }

    metric_histogram& acquire_seconds;
    metric_counter& keepalive_extensions;
    metric_counter& lock_lost;

private:
    void observe_acquire(const std::optional<std::chrono::nanoseconds>& acquire_time) noexcept {
        if (acquire_time) acquire_seconds.observe(std::chrono::duration<double>(*acquire_time).count());
    }
    thread_lock_instruments& look_up_for_this_thread(const std::string& name);
    /// The map's entry: its key is what the per-thread cache compares with (nodes never move).
    const std::pair<const std::string, lock_instruments>& lookup(const std::string& name);

    const std::uint64_t id_;  // never reused, unlike an address: keys the per-thread cache
    metrics_registry& registry_;
    std::mutex mutex_;
    std::unordered_map<std::string, lock_instruments> locks_;
};

}  // namespace shedlock::detail
