#pragma once
// The listeners of one executor: its own metrics first (called through their final type, inline),
// then the users' listeners (virtual calls, each guarded). An executor with neither has none of
// this (a null pointer): the cost of "no listener" is one test per event.

#include "executor_metrics.hpp"

#include <shedlock/executor_listener.hpp>
#include <shedlock/locking_task_executor.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::detail {

/// Whether to time a try_lock call: every call while try_lock is slow (the last timed call took
/// >= slow: a database, where two clock reads are noise); one call in sample_every of a thread
/// while it is fast (in memory, where two clock reads of ~30 ns each would be a fifth of the cycle).
/// Calls left before the next timed try_lock while it is fast (per thread: no shared write).
extern constinit thread_local std::uint32_t calls_until_timed;

class acquire_sampler {
public:
    bool time_this_call() noexcept {
        if (!fast_.load(std::memory_order_relaxed)) return true;
        const auto left = calls_until_timed;
        calls_until_timed = left == 0 ? sample_every - 1 : left - 1;
        return left == 0;
    }
    /// Records a timed call's duration: whether try_lock is fast.
    void timed(std::chrono::nanoseconds took) noexcept { fast_.store(took < slow, std::memory_order_relaxed); }
    static constexpr std::chrono::nanoseconds slow{10'000};
    static constexpr std::uint32_t sample_every = 64;

private:
    std::atomic<bool> fast_{false};
};

/// Where a listener's exception goes: one line naming the hook, the lock and the error.
using listener_error_handler = std::function<void(const std::string&)>;

class executor_listeners {
public:
    explicit executor_listeners(std::shared_ptr<executor_metrics> metrics) : metrics_(std::move(metrics)) {}

    void add(std::shared_ptr<executor_listener> listener) { users_.push_back(std::move(listener)); }
    void set_error_handler(listener_error_handler handler) { on_error_ = std::move(handler); }
    /// True when some user listener wants the body's duration (two clock reads per execution).
    bool wants_duration() const noexcept { return !users_.empty(); }
    acquire_sampler& sampler() noexcept { return sampler_; }
    /// What the keep-alive watchdog counts its extensions on (null without metrics).
    metric_counter* extensions_counter() const noexcept { return metrics_ ? &metrics_->keepalive_extensions : nullptr; }

    /// After try_lock acquired. `make_event` builds the execution_event: only for the users'
    /// listeners, the metrics take the two facts they count by (the hot path builds no event).
    template <typename Make_event>
    [[gnu::always_inline]] void acquired(const lock_configuration& config,
                                         const std::optional<std::chrono::nanoseconds>& acquire_time,
                                         const Make_event& make_event) {
        if (metrics_) metrics_->acquired(config, acquire_time);
        if (!users_.empty()) notify_users(make_event());
    }
    void skipped(const skipped_event& e) {
        if (metrics_) metrics_->on_skipped(e);
        if (!users_.empty()) notify_users(e);
    }
    void lock_lost(const lock_lost_event& e) {
        if (metrics_) metrics_->on_lock_lost(e);
        if (!users_.empty()) notify_users(e);
    }
    void finished(const finished_event& e) {
        if (metrics_) metrics_->on_finished(e);
        if (!users_.empty()) notify_users(e);
    }
    /// The end of an execution that got past try_lock (acquired or re-entrant): on_lock_lost if
    /// the lock was lost, then on_finished when the body ran, else on_skipped (the claim step).
    /// The metrics' on_finished and on_skipped of such an execution both count the release only:
    /// that step is called directly, and the events are built for the users' listeners alone.
    template <typename Make_event>
    [[gnu::always_inline]] void ended(const lock_configuration& config, lock_attempt attempt,
                                      const execution_result& result, std::chrono::nanoseconds duration,
                                      const Make_event& make_event) {
        if (result.lock_lost) lock_lost(lock_lost_event{make_event()});
        if (metrics_) metrics_->ended(config, attempt);
        if (!users_.empty()) notify_users_end(make_event(), result, duration);
    }

private:
    void notify_users(const execution_event& e);
    void notify_users(const skipped_event& e);
    void notify_users(const lock_lost_event& e);
    void notify_users(const finished_event& e);
    void notify_users_end(const execution_event& base, const execution_result& result, std::chrono::nanoseconds duration);
    /// Calls `hook` on every user listener; one that throws is reported, the others still run.
    template <typename Call>
    void each(const char* hook, const execution_event& e, Call call) noexcept;

    std::shared_ptr<executor_metrics> metrics_;  // null: no metrics
    std::vector<std::shared_ptr<executor_listener>> users_;
    listener_error_handler on_error_;
    acquire_sampler sampler_;
};

}  // namespace shedlock::detail
