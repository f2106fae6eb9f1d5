#pragma once
// The executor's instruments, resolved once per lock name and thread, so a lock cycle costs a
// per-thread cache hit and two increments of the thread's own counter cells (attempts and
// releases: a plain load and store each); the acquire time is sampled when try_lock is fast (see
// time_this_call).

#include <shedlock/metrics.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
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

/// A lock's instruments as one thread uses them: the hot counters through the thread's cells.
struct thread_lock_instruments {
    const lock_instruments* shared = nullptr;
    metric_counter_cell* acquired = nullptr;
    metric_counter_cell* released = nullptr;  // held_here's releases()
    /// Calls left before the next timed one while try_lock is fast (per thread: no shared write).
    std::uint32_t countdown = 0;
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

/// Byte equality inline, with word loads: a hot loop's lock names are short, and a libc memcmp
/// call costs more than the comparison (bench/metrics_overhead).
inline bool same_bytes(const std::string& a, const std::string& b) noexcept {
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

/// What a locking_task_executor updates: attempts per lock and outcome, acquire latency per
/// provider, keep-alive extensions and lost locks. Safe for concurrent use.
class executor_metrics {
public:
    executor_metrics(metrics_registry& registry, const std::string& provider);
    /// This thread's instruments of lock `name` (valid until this thread asks for another lock).
    /// Inline: the cache hit is the executor's hot path.
    thread_lock_instruments& for_lock(const std::string& name) {
        auto& cache = last_lock_lookup;
        if (cache.owner == id_ && same_bytes(*cache.name, name)) return cache.instruments;
        return look_up_for_this_thread(name);
    }

    /// Whether to time this try_lock call. Every call while try_lock is slow (the last timed call
    /// took >= slow_acquire_seconds: a database, where two clock reads are noise); one call in
    /// fast_sample_every of a thread while it is fast (in memory, where two clock reads of ~30 ns
    /// each would be a fifth of the cycle).
    bool time_this_call(thread_lock_instruments& mine) const noexcept {
        if (!fast_.load(std::memory_order_relaxed)) return true;
        const auto left = mine.countdown;
        mine.countdown = left == 0 ? fast_sample_every - 1 : left - 1;
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
    thread_lock_instruments& look_up_for_this_thread(const std::string& name);
    /// The map's entry: its key is what the per-thread cache compares with (nodes never move).
    const std::pair<const std::string, lock_instruments>& lookup(const std::string& name);

    const std::uint64_t id_;  // never reused, unlike an address: keys the per-thread cache
    metrics_registry& registry_;
    std::mutex mutex_;
    std::unordered_map<std::string, lock_instruments> locks_;
    std::atomic<bool> fast_{false};
};

}  // namespace shedlock::detail
