#pragma once
/// \file
/// Callbacks of a locking_task_executor (and of the scheduler's firings): what happened to each
/// execution, for users' own logging, tracing or metrics, without patching the executor.

#include <shedlock/lock_configuration.hpp>
#include <shedlock/time.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shedlock {

enum class run_outcome;
struct execution_result;

/// What this execution did with the lock.
enum class lock_attempt {
    acquired,        ///< try_lock took the lock; it is released after on_finished / on_skipped
    held_elsewhere,  ///< try_lock found it held (outcome skipped_locked)
    failed,          ///< try_lock threw a storage_error (outcome lock_error)
    reentrant,       ///< this thread already held it through an executor: no try_lock, no release
    none,            ///< no try_lock at all (the scheduler's skipped_running, a lock name that did not render)
};

/// What every event carries. The references are valid during the callback only: copy what you keep.
struct execution_event {
    /// The lock of this execution; name() is the rendered name (`settle:20240601`), metrics_name()
    /// the template it came from.
    const lock_configuration& config;
    /// The scheduler's task name; empty for a direct execute() call.
    std::string_view task;
    /// The firing's scheduled time (execute_options::scheduled_at).
    timestamp scheduled_at;
    lock_attempt attempt;
    /// The acquisition's fencing token (empty when not acquired, or unsupported by the provider).
    std::optional<std::int64_t> fencing_token;
    /// How long try_lock took, when it was timed: every call while try_lock is slow (10 us or
    /// more), one call in 64 of a thread while it is faster (two clock reads would be a fifth of
    /// an in-memory cycle). Empty otherwise, and when no try_lock ran.
    std::optional<std::chrono::nanoseconds> acquire_time;
};

/// The task did not run (or its claim step refused it): one of skipped_locked, skipped_running,
/// skipped_done or lock_error.
struct skipped_event : execution_event {
    run_outcome outcome;
    /// Why: "lock \"x\" is held elsewhere", the storage error, the claim's state.
    const std::string& message;
};

/// A keep-alive extension failed while the body ran: another instance may now hold the lock and
/// the body was asked to cancel.
struct lock_lost_event : execution_event {};

/// The body ran and returned (succeeded) or threw (failed).
struct finished_event : execution_event {
    /// Outcome, message (the exception text), counters, lock_lost, idempotency attempt and claim
    /// flags. unlock_failed is not known yet: the release comes after on_finished.
    const execution_result& result;
    /// The body's time (with its claim's complete/fail), on the steady clock.
    std::chrono::nanoseconds duration;
};

/// Receives what executions did. Register with locking_task_executor::add_listener or
/// scheduler_options::listeners; several may be registered, and they are called in that order
/// (the executor's own metrics, when it has them, first).
///
/// Calls, per execution, all on the thread that runs it (the caller of execute(); a worker of the
/// scheduler's pool for firings), never concurrently for one execution:
///   - lock acquired: on_acquired, then [on_lock_lost], then exactly one of on_finished (succeeded,
///     failed) or on_skipped (the claim step: skipped_done, skipped_locked by a live claim,
///     lock_error of the idempotency store), then the lock is released;
///   - not acquired: exactly one on_skipped (skipped_locked, lock_error);
///   - re-entrant (attempt reentrant): on_finished or on_skipped only;
///   - scheduler only: on_skipped(skipped_running) when the previous firing still runs, and
///     on_skipped(lock_error, attempt none) when the lock name did not render.
/// So every outcome reaches each listener exactly once. on_lock_lost comes at most once, after the
/// body returned (the watchdog is stopped by then). Different executions call concurrently:
/// an implementation must be safe for concurrent use.
///
/// A callback that throws is reported to the executor's listener error handler (the scheduler's
/// warning sink) with the listener's hook and lock name; the execution and the other listeners
/// carry on. A callback runs on the execution's path: keep it short (hand slow work elsewhere).
class executor_listener {
public:
    virtual ~executor_listener() = default;
    virtual void on_acquired(const execution_event&) {}
    virtual void on_skipped(const skipped_event&) {}
    virtual void on_lock_lost(const lock_lost_event&) {}
    virtual void on_finished(const finished_event&) {}
};

}  // namespace shedlock
