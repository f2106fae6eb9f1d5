#pragma once
/// \file
/// Runs a task only when its lock was acquired.

#include <shedlock/error.hpp>
#include <shedlock/executor_listener.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/task_context.hpp>
#include <shedlock/timer_service.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace shedlock {

class metrics_registry;
namespace detail {
class executor_listeners;
}

/// How one execution ended.
enum class run_outcome {
    succeeded,        ///< the task ran and returned
    failed,           ///< the task threw; message kept
    skipped_locked,   ///< another instance held the lock (normal)
    skipped_running,  ///< still running locally (set by the scheduler)
    lock_error,       ///< the backend was unavailable; the task did not run
    skipped_done,     ///< the idempotency key was already done: the work happened before (normal)
};

/// "succeeded", "failed", "skipped_locked", "skipped_running", "lock_error", "skipped_done".
const char* to_string(run_outcome outcome) noexcept;
/// Inverse of to_string; throws configuration_error on an unknown word.
run_outcome parse_run_outcome(const std::string& text);

/// The result of one execute() call.
struct execution_result {
    run_outcome outcome = run_outcome::succeeded;
    std::string message;                        ///< exception text, or why it was skipped
    std::optional<std::int64_t> fencing_token;  ///< of the acquisition, when it ran
    bool lock_lost = false;                     ///< a keep-alive extension failed
    std::map<std::string, std::int64_t> counters;
    /// The final unlock failed (the message says why): the lock stays held until its lock_until.
    bool unlock_failed = false;
    /// With an idempotency key: the claim's attempt number when the task ran (0 otherwise).
    std::int64_t attempt = 0;
    /// The claim was no longer this run's at complete()/fail() (reset, deleted, lost by the
    /// store, or expired and taken over): this run's outcome was not recorded with the key (the
    /// message says so; a succeeded run's work may be done again).
    bool claim_lost = false;
    /// complete()/fail() failed with a storage_error even after the store's retry on a new
    /// connection: the key still says running until its claim_for ends, and a run after that does
    /// the work again (a succeeded run's work may be done twice). The message says so; warn loudly.
    bool claim_unrecorded = false;
    /// The warning of claim_lost or claim_unrecorded alone ("" otherwise): `message` also holds
    /// the task's own failure and the unlock's, for the run record.
    std::string claim_problem{};
    /// Why the final unlock failed ("" unless unlock_failed), without the other messages.
    std::string unlock_problem{};
    /// With outcome lock_error: the storage_error's category (the backend unreachable, or a
    /// statement it refused), so that a caller does not call every failure "unavailable".
    std::optional<storage_category> error_category{};
};

/// The business layer of one execution (docs/idempotency.md).
struct idempotency_options {
    idempotency_store* store = nullptr;  ///< not owned; must outlive execute()
    std::string key;                     ///< the rendered key, e.g. "settle:20240601"
    /// How long the claim holds before another owner may take it over; zero: lock_at_most_for.
    std::chrono::milliseconds claim_for{0};
};

/// Options of one execution.
struct execute_options {
    /// Extend the lease every lock_at_most_for / 2 while the task runs.
    bool keep_alive = false;
    timestamp scheduled_at{};
    /// Claim this key after the lock is acquired: a done key gives skipped_done (the task does
    /// not run), a live claim of another owner skipped_locked; the task's return completes the
    /// claim (with task_context::set_result), its exception fails it.
    std::optional<idempotency_options> idempotency = {};
    /// While the lock is held elsewhere, keep trying for this long (try_lock_for, lock_wait.hpp)
    /// before the outcome is skipped_locked; zero: one attempt.
    std::chrono::milliseconds wait_for_lock{0};
    /// How that wait polls, and what ends it early (stop_requested).
    lock_wait_options wait = {};
    /// The scheduler's task name, handed to listeners (execution_event::task); not copied.
    std::string_view task = {};
};

using locked_task = std::function<void(task_context&)>;

/// `execute(task, config)`: try_lock; if not acquired -> skipped_locked; else run the task with a
/// task_context, keep the lease alive if asked, and unlock after the task returned. With an
/// idempotency key the order is lock -> claim -> body -> complete/fail -> unlock; a claim that
/// cannot be reached (storage_error) is a lock_error and the task does not run.
///
/// The lock is released only after the task body returned, so a task that commits its own
/// transaction before returning never has its lock released before the work is durable. Do not
/// hand work to another thread and return early: the lock would be released under it.
///
/// Re-entrancy: when the current thread already holds `config.name()` through an executor, the
/// task runs directly without locking again.
///
/// Metrics: with a registry, every execute() counts `shedlock_lock_attempts_total{lock,outcome}`
/// (acquired, held, error), times try_lock into `shedlock_lock_acquire_seconds{provider}` (every
/// call while try_lock takes 10 us or more, one in 64 while it is faster: see
/// docs/observability.md), keeps
/// `shedlock_lock_held{lock}` at 1 while the body runs, and counts
/// `shedlock_keepalive_extensions_total` and `shedlock_lock_lost_total`. The registry must outlive
/// the executor. The metrics are the executor's first listener (executor_listener.hpp).
///
/// Listeners: add_listener() registers more; each execution's outcome reaches each listener
/// exactly once, on the thread that called execute() (executor_listener.hpp for the order).
///
/// Keep-alive: every execution with keep_alive extends its lock from a timer on the executor's
/// timer service (use_timer_service(); by default the process's one shared timer thread), not
/// from a thread of its own.
///
/// Thread safety: safe for concurrent use; each execute() is independent. add_listener(),
/// set_listener_error_handler() and use_timer_service() are not: call them before the executor is
/// first used.
class locking_task_executor {
public:
    explicit locking_task_executor(lock_provider& provider) : provider_(&provider) {}
    /// `provider_name` is the `provider` label of the acquire histogram (e.g. the URI scheme).
    locking_task_executor(lock_provider& provider, metrics_registry& metrics, const std::string& provider_name);

    execution_result execute(const locked_task& task, const lock_configuration& config,
                             const execute_options& options = {});

    /// Where keep-alive extensions run (the scheduler gives its io_context's); it must outlive
    /// every execute(). Default: shared_timer_service(). Not while another thread executes.
    void use_timer_service(timer_service& timers) noexcept;
    /// Adds a listener, called after the earlier ones. Not while another thread executes.
    void add_listener(std::shared_ptr<executor_listener> listener);
    /// Where an exception thrown by a listener is reported (one line); default: stderr.
    void set_listener_error_handler(std::function<void(const std::string&)> handler);
    /// Hands an outcome decided outside execute() (the scheduler's skipped_running, a lock name
    /// that did not render) to the listeners, as on_skipped.
    void report_skipped(const skipped_event& event);

private:
    execution_result run_locked(const locked_task& task, lock_handle handle, const lock_configuration& config,
                                const execute_options& options, std::optional<std::chrono::nanoseconds> acquire_time);
    detail::executor_listeners& listeners();
    timer_service& timers() const;

    lock_provider* provider_;
    timer_service* timers_ = nullptr;  // null: shared_timer_service()
    std::shared_ptr<detail::executor_listeners> listeners_;  // null: no metrics and no listener
};

}  // namespace shedlock
