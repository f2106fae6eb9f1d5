#pragma once
// Private state of shedlock::asio::scheduler. Everything but the atomics is touched on `strand`
// only: the task loops (scheduler_loop.cpp), the firings (scheduler_firing.cpp), the
// keep-alives (scheduler_keep_alive.cpp) and stop (scheduler.cpp) are coroutines there. Blocking
// work (blocking bodies, run-record appends) goes to `pool` and is awaited (run_blocking.hpp).
#include "backend_failure_log.hpp"
#include "claims_marker.hpp"
#include "firing_signals.hpp"
#include "prepared_task.hpp"
#include "strand_event.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <memory>
#include <optional>
#include <vector>

namespace shedlock::asio {

/// One task while the scheduler runs.
struct task_runtime {
    task_runtime(shedlock::detail::prepared_task t, async_task_body b, const boost::asio::any_io_executor& strand)
        : task(std::move(t)), body(std::move(b)), timer(strand), lock_name(task.lock.name()) {}

    shedlock::detail::prepared_task task;
    async_task_body body;  ///< empty: the blocking body task.definition.body, run on the pool
    boost::asio::steady_timer timer;
    bool running = false;  ///< a firing is in flight on this instance
    bool warned_long_run = false;
    shedlock::detail::backend_failure_log backend_failures;  ///< warns when firings start and stop failing
    std::shared_ptr<detail::firing_state> firing;  ///< the one holding its lock, for stop()
    // What task_statuses() shows (scheduler_status.cpp).
    std::string lock_name;  ///< of the current or last firing; before the first, rendered at start()
    std::optional<timestamp> next_fire;
    std::deque<run_summary> recent;  ///< at most task_status::recent_capacity, oldest first
};

struct scheduler::impl : std::enable_shared_from_this<scheduler::impl> {
    impl(boost::asio::any_io_executor executor, lock_service& l, run_store& r, claim_service* c, scheduler_options o);

    // lifecycle (scheduler.cpp)
    void check_supported() const;
    /// The options validation and claim_for_firing see: claims = the marker when a claim_service
    /// was given.
    scheduler_options checked_options() const;
    boost::asio::awaitable<void> stop_all(std::chrono::milliseconds grace);
    void warn(const std::string& message) const;
    /// Runs `work` on the strand as one job: stop() waits for every job.
    void spawn_job(boost::asio::awaitable<void> work);
    void end_job();
    static boost::asio::awaitable<void> run_job(std::shared_ptr<impl> self, boost::asio::awaitable<void> work);
    static boost::asio::awaitable<void> run_stop(std::shared_ptr<impl> self, std::chrono::milliseconds grace,
                                                 detail::unique_function<void()> done);
    // timers (scheduler_loop.cpp)
    boost::asio::awaitable<void> task_loop(task_runtime& t);
    boost::asio::awaitable<void> skipped_running(task_runtime& t, timestamp at);
    // firings (scheduler_firing.cpp)
    boost::asio::awaitable<void> fire(task_runtime& t, timestamp at);
    boost::asio::awaitable<std::optional<lock_handle>> acquire(const task_runtime& t, const lock_configuration& config,
                                                               timestamp at);
    std::chrono::milliseconds wait_for_firing(const task_runtime& t, timestamp at) const;
    boost::asio::awaitable<void> run_locked(task_runtime& t, lock_handle handle, const lock_configuration& config,
                                            run_record& r);
    boost::asio::awaitable<void> run_claimed(task_runtime& t, detail::firing_state& f, const lock_configuration& config,
                                             run_record& r);
    boost::asio::awaitable<void> run_body(task_runtime& t, detail::firing_state& f, run_record& r);
    boost::asio::awaitable<void> record(const run_record& r);
    /// Warns once per task when a run without keep-alive outlasted its lock_at_most_for.
    void check_duration(task_runtime& t, const run_record& r);
    // status (scheduler_status.cpp)
    /// Remembers a finished (or skipped) firing for task_statuses().
    void observe(task_runtime& t, const run_record& r);
    std::vector<task_status> task_statuses() const;
    void run_stop_hooks();
    // keep-alive (scheduler_keep_alive.cpp)
    boost::asio::awaitable<void> keep_alive(std::shared_ptr<detail::firing_state> f, std::chrono::milliseconds at_most);

    boost::asio::strand<boost::asio::any_io_executor> strand;
    lock_service& locks;
    run_store& runs;
    claim_service* claims;
    scheduler_options options;
    const shedlock::clock& wall;
    detail::claims_marker marker;
    std::vector<task_definition> definitions;
    std::vector<async_task_body> bodies;  // beside definitions: empty for a blocking task
    std::vector<std::unique_ptr<task_runtime>> tasks;
    std::unique_ptr<blocking_pool> pool;

    std::atomic<bool> started{false};
    std::atomic<bool> stopping{false};  // written on the strand, read anywhere
    std::atomic<bool> stop_begun{false};
    detail::strand_event stop_requested{strand};  // ends waits for locks early
    std::size_t jobs = 0;
    detail::strand_event idle{strand};  // set once stopping and no job is left
    std::atomic<std::uint64_t> firings{0};
    std::atomic<std::uint64_t> missed{0};
    std::mutex hooks_mutex;  // on_stop() from any thread
    std::vector<std::function<void()>> stop_hooks;
    bool hooks_ran = false;  // under hooks_mutex
};

}  // namespace shedlock::asio
