#pragma once
// Private state of shedlock::scheduler: the Asio io_context (timer thread) with its timer queue,
// the worker pool and one runtime per task. Heavy Asio code stays in the .cpp files.

#include "asio_timer_service.hpp"
#include "backend_failure_log.hpp"
#include "prepared_task.hpp"

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace shedlock {

/// One task while the scheduler runs. `due` is touched only on the timer thread.
struct task_runtime {
    explicit task_runtime(detail::prepared_task t) : task(std::move(t)), lock_name(task.lock.name()) {}

    detail::prepared_task task;
    std::optional<timestamp> due;      // its entry in the timer queue, if armed
    std::atomic<bool> running{false};  // a firing of this task is in flight on this instance
    std::mutex context_mutex;
    task_context* context = nullptr;   // of the running body, for cancellation at stop()
    std::atomic<bool> warned_long_run{false};
    detail::backend_failure_log backend_failures;  // warns when firings start and stop failing
    std::atomic<std::int64_t> next_fire_ms{-1};  // epoch ms of `due`, readable from any thread
    mutable std::mutex recent_mutex;
    std::deque<run_summary> recent;  // newest last
    // The lock of the current (or last) firing: a templated name changes per firing. Guarded by
    // recent_mutex; the name rendered at start() until the first firing.
    std::string lock_name;
    // Instruments resolved at start() (null without a registry).
    metric_histogram* duration = nullptr;
    metric_histogram* lateness = nullptr;
    metric_gauge* last_success = nullptr;
    metric_gauge* next_fire = nullptr;
};

using run_promise = std::shared_ptr<std::promise<run_record>>;

/// One firing handed to the workers.
struct firing {
    task_runtime* task = nullptr;
    timestamp at{};
    bool overlaps = false;  // the task's previous run is still going: recorded as skipped_running
    run_promise manual;     // run_now(): receives the record
};

/// The wall clock as finely as it reads (the system clock: nanoseconds).
using precise_time = std::chrono::sys_time<std::chrono::nanoseconds>;

/// Tasks with the firing time to arm them for.
using arm_list = std::vector<std::pair<task_runtime*, timestamp>>;

/// The last next-firing time computed in one wake(): the tasks of a burst on one trigger share it.
struct next_firing_cache {
    const detail::firing_times* firings = nullptr;
    timestamp at{};
    std::optional<timestamp> next;
};

/// Firings dispatched together; the workers added to it take them in order.
struct firing_batch {
    firing_batch(std::vector<firing> f, std::size_t w) : firings(std::move(f)), workers(w) {}
    std::vector<firing> firings;
    std::size_t workers;                    // how many workers take its firings (at most one per firing)
    std::atomic<std::size_t> next{0};       // the next firing to take
    std::atomic<std::size_t> workers_added{0};  // workers asked so far (add_worker)
};

struct scheduler::impl {
    impl(lock_provider& l, run_store& r, scheduler_options o);

    // The firing path reads in two files: the timer thread (scheduler_timers.cpp), then the
    // workers (scheduler_firing.cpp).
    // timers (scheduler_timers.cpp): on the timer thread
    void arm(task_runtime& t, timestamp at);
    void disarm(task_runtime& t);
    void wake();
    std::vector<firing> take_due(precise_time reached, arm_list& skipped);
    void arm_next(task_runtime& t, timestamp at, timestamp now, next_firing_cache& cache);
    void set_timer(timestamp at);
    precise_time precise_now() const;
    std::chrono::nanoseconds until(timestamp at) const;
    // firings (scheduler_firing.cpp): dispatch from any thread, the rest on the workers
    void dispatch(std::vector<firing> batch);
    /// Asks one more worker to take firings from `batch`, unless it has enough.
    void add_worker(const std::shared_ptr<firing_batch>& batch);
    /// A worker's share of `batch`: its firings in order, until none is left.
    void take_firings(const std::shared_ptr<firing_batch>& batch);
    void run_one(const firing& f);
    std::optional<run_record> run_firing(task_runtime& t, timestamp at);
    /// How long the firing at `at` may wait for its lock: wait_for_lock, cut at the next firing.
    std::chrono::milliseconds wait_for_firing(const task_runtime& t, timestamp at) const;
    run_record skipped_running(const task_runtime& t, timestamp at) const;
    void record(const run_record& r);
    /// Hands a firing that never reached the executor (skipped_running, a lock name that did not
    /// render) to the executor's listeners.
    void report_skipped(const task_runtime& t, const run_record& r);
    void begin_jobs(std::size_t n);  // take_firings() counts them done, once per worker and batch
    // metrics, status and warnings (scheduler_status.cpp)
    void instrument(task_runtime& t);
    void observe(task_runtime& t, const run_record& r);
    void set_next_fire(task_runtime& t, std::optional<timestamp> at);
    void check_duration(task_runtime& t, const run_record& r);
    void warn_from_history(const std::vector<detail::prepared_task>& tasks);
    void warn(const std::string& message) const;
    // expired records of rendered lock names (rendered_lock_sweep.cpp) — on the workers
    void sweep_rendered_locks();
    std::vector<std::string> expired_rendered_names(const std::vector<lock_record>& records, timestamp cutoff) const;

    lock_provider& locks;
    run_store& runs;
    scheduler_options options;
    const shedlock::clock& wall;
    locking_task_executor executor;
    std::vector<task_definition> definitions;

    boost::asio::io_context io;  // declared before the timers that use it
    // The executor's keep-alives: timers on `io` (the timer thread), none with a thread of its own.
    detail::asio_timer_service keep_alive_timers{io.get_executor()};
    std::vector<std::unique_ptr<task_runtime>> tasks;
    // The timer queue (timer thread only): the armed tasks grouped by firing time, and one
    // steady_timer for the earliest, so the tasks due at one instant wake the thread once and go
    // out as one batch.
    std::map<timestamp, std::vector<task_runtime*>> queue;
    boost::asio::steady_timer timer{io};
    std::optional<timestamp> timer_at;  // what `timer` waits for
    bool waking = false;                // inside wake(): it sets the timer once at the end
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
    std::optional<boost::asio::thread_pool> pool;
    std::thread timer_thread;

    std::atomic<bool> started{false};
    std::atomic<bool> stopping{false};
    std::atomic<bool> stopped{false};
    std::mutex jobs_mutex;
    std::condition_variable jobs_done;
    std::size_t jobs = 0;
    std::atomic<std::uint64_t> firings{0};
    std::atomic<std::uint64_t> missed{0};
    std::atomic<std::int64_t> next_sweep_ns{0};  // steady clock; the worker that moves it sweeps
    std::atomic<bool> sweep_unsupported{false};
    std::mutex hooks_mutex;
    std::vector<std::function<void()>> stop_hooks;
};

/// The parts of a scheduler that the status server (status/, built with this folder's private
/// headers) uses.
struct detail::scheduler_access {
    static boost::asio::io_context& io(scheduler& s) { return s.impl_->io; }
    static void warn(const scheduler& s, const std::string& message) { s.impl_->warn(message); }
    /// The name this scheduler writes to its run records.
    static const std::string& instance(const scheduler& s) { return s.impl_->options.instance; }
};

}  // namespace shedlock
