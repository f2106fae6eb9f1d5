#pragma once
/// \file
/// Runs registered tasks on Boost.Asio timers, each firing under a cluster-wide lock.

#include <shedlock/executor_listener.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/run_store.hpp>
#include <shedlock/task_registry.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock {
namespace detail {
struct scheduler_access;
}

struct scheduler_options {
    /// Threads that make lock calls, run task bodies and write run records. Never the timer thread.
    std::size_t worker_threads = 4;
    /// Applies to every task that gives no lock_at_most_for.
    std::optional<std::chrono::milliseconds> default_lock_at_most_for;
    /// Rendered into `{env}` of lock-name templates (e.g. "prod").
    std::string env;
    /// Written to run records; default instance_id() (`<hostname>:<pid>`).
    std::string instance;
    /// Where warnings go (append failures, tasks outrunning lock_at_most_for, stop timeouts);
    /// default: one line on stderr.
    std::function<void(const std::string&)> warn;
    /// Wall clock for scheduled times and run records; default the system clock. Timers always
    /// wait on the steady clock.
    const shedlock::clock* clock = nullptr;
    /// Where tasks with an idempotency_key claim it (not owned; must outlive the scheduler). A
    /// task with a key and no store here is a start() error.
    idempotency_store* claims = nullptr;
    /// Grace the destructor gives running tasks when stop() was not called.
    std::chrono::milliseconds destructor_grace = std::chrono::seconds{30};
    /// Where the scheduler and its executor count (see docs/observability.md); null: nowhere.
    /// Must outlive the scheduler.
    metrics_registry* metrics = nullptr;
    /// The `provider` label of shedlock_lock_acquire_seconds (e.g. the URI scheme).
    std::string provider_name = "unknown";
    /// Told what every firing did (executor_listener.hpp), in this order, after the metrics: on
    /// a worker thread of the pool, events carry the task name and scheduled time. A listener
    /// that throws is reported to `warn`. Shared: a listener may outlive the scheduler.
    std::vector<std::shared_ptr<executor_listener>> listeners;
    /// How long a lock record of a name rendered with {date} or {datetime} is kept after it
    /// expired. Such a task leaves one record per rendered name (86,400 a day for a per-second
    /// name); at most once a minute (or once per retention, if shorter) the scheduler deletes the
    /// records of names rendered from its tasks' templates that expired longer ago than this. A
    /// held record, the current firing's and other names are never deleted. A deleted name's
    /// fencing counter starts again if the name is ever rendered again: keep the retention longer
    /// than a repeated local hour at a DST change. Empty: records are kept. Must be positive.
    /// On Redis the lock keys expire by themselves; the fence keys of rendered names are kept.
    std::optional<std::chrono::milliseconds> rendered_lock_retention = std::chrono::hours{24};
};

/// One finished firing as this instance saw it (for status pages).
struct run_summary {
    timestamp scheduled_at{};
    timestamp started_at{};
    timestamp finished_at{};
    run_outcome outcome = run_outcome::succeeded;
    std::string message;
};

/// A task as the running scheduler sees it now.
struct task_status {
    std::string name;
    std::string schedule;   ///< trigger::describe()
    std::string lock_name;  ///< of the current (or last) firing; before the first, rendered at start()
    std::chrono::milliseconds lock_at_most_for{0};
    bool enabled = true;
    bool running = false;   ///< a firing is in flight on this instance
    std::optional<timestamp> next_fire;
    /// This instance's last firings, oldest first (at most task_status::recent_capacity).
    std::vector<run_summary> recent;
    static constexpr std::size_t recent_capacity = 20;
};

/// Counters of one scheduler since start().
struct scheduler_stats {
    std::uint64_t firings = 0;  ///< timer firings dispatched (incl. skipped_running)
    std::uint64_t missed = 0;   ///< firings found later than misfire_grace and skipped
};

/// What scheduler::start() checks of `tasks` under `options` (names, schedules, lock policies,
/// rendered lock names and idempotency keys, the options' bounds), without a provider and without
/// running anything: `shedlock daemon --dry-run`. Throws the configuration_error start() would.
void check_tasks(const std::vector<task_definition>& tasks, const scheduler_options& options);

/// Drives tasks: timers on an Asio io_context thread; every firing is posted to a worker pool,
/// goes through the locking_task_executor (try_lock, body, optional keep-alive, unlock) and
/// writes a run_record. A task never overlaps itself on one instance (skipped_running);
/// across instances the lock decides (skipped_locked).
///
/// Lifecycle: add tasks, start() (validates everything first: on any error it throws
/// configuration_error listing each problem with the task and the value, and nothing runs),
/// stop(grace) or the destructor. A scheduler starts once.
///
/// Thread safety: start/stop/add from one controlling thread; run_now and stats from any thread.
/// The provider and run store must outlive the scheduler.
class scheduler {
public:
    scheduler(lock_provider& locks, run_store& runs, scheduler_options options = {});
    /// stop(options.destructor_grace) if still running. Never throws.
    ~scheduler();
    scheduler(const scheduler&) = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Adds one task. Its values are checked at start(); adding after start() throws
    /// configuration_error.
    void add(task_definition task);
    /// Adds a copy of every task of `registry` (e.g. global_task_registry()).
    void add(const task_registry& registry);

    /// Validates every task, then arms the timers. Throws configuration_error naming each bad
    /// task and value (duplicate name, bad cron, unknown zone, period <= 0, bad or missing
    /// lock_at_most_for, a minimum hold (lock_at_least_for) longer than lock_at_most_for, bad
    /// lock-name template); then nothing has started.
    /// Warns when a task's recorded runs took longer than its lock_at_most_for.
    void start();

    /// No new firings; running tasks get cancellation requested and `grace` to return; their
    /// locks are released and records written as they return. Waits for them (a body that
    /// ignores cancellation past `grace` is reported to the warning sink and still awaited:
    /// threads cannot be killed safely). Idempotent.
    void stop(std::chrono::milliseconds grace);

    /// Runs `task` now, through the lock, on the worker pool, and returns its record (also
    /// appended to the run store). Works for disabled tasks too. Throws configuration_error for
    /// an unknown task or when the scheduler is not running.
    run_record run_now(const std::string& task);

    scheduler_stats stats() const;
    /// Every task with its schedule, next firing and recent runs; empty before start().
    std::vector<task_status> task_statuses() const;
    /// The wall clock the scheduler uses.
    const shedlock::clock& wall_clock() const noexcept;
    /// The lock provider and run store it was given.
    lock_provider& provider() const noexcept;
    run_store& runs() const noexcept;
    /// `hook` runs on the timer thread when stop() begins (e.g. to close a server that shares the
    /// io_context). Safe from any thread.
    void on_stop(std::function<void()> hook);
    bool running() const noexcept;

private:
    friend struct detail::scheduler_access;  // the status server (component shedlock::status)
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace shedlock
