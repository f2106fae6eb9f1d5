#pragma once
// Private state of shedlock::scheduler: the Asio io_context (timer thread), the worker pool and
// one runtime per task. Heavy Asio code stays in the .cpp files.

#include "prepared_task.hpp"

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace shedlock {

/// One task while the scheduler runs. `timer` is touched only on the timer thread.
struct task_runtime {
    task_runtime(detail::prepared_task t, boost::asio::io_context& io) : task(std::move(t)), timer(io) {}

    detail::prepared_task task;
    boost::asio::steady_timer timer;
    std::atomic<bool> running{false};  // a firing of this task is in flight on this instance
    std::mutex context_mutex;
    task_context* context = nullptr;   // of the running body, for cancellation at stop()
    std::atomic<bool> warned_long_run{false};
};

using run_promise = std::shared_ptr<std::promise<run_record>>;

struct scheduler::impl {
    impl(lock_provider& l, run_store& r, scheduler_options o);

    // timers (scheduler_timers.cpp) — called on the timer thread
    void arm(task_runtime& t, timestamp at);
    void on_timer(task_runtime& t, timestamp at);
    // firings (scheduler_firing.cpp) — dispatch from any thread, the rest on workers
    void dispatch(task_runtime& t, timestamp at, run_promise manual);
    std::optional<run_record> run_firing(task_runtime& t, timestamp at);
    run_record skipped_running(const task_runtime& t, timestamp at) const;
    void record(const run_record& r);
    void check_duration(task_runtime& t, const run_record& r);
    void warn_from_history(const std::vector<detail::prepared_task>& tasks);
    void warn(const std::string& message) const;
    void begin_job();
    void end_job();

    lock_provider& locks;
    run_store& runs;
    scheduler_options options;
    const shedlock::clock& wall;
    locking_task_executor executor;
    std::vector<task_definition> definitions;

    boost::asio::io_context io;  // declared before the timers that use it
    std::vector<std::unique_ptr<task_runtime>> tasks;
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
};

}  // namespace shedlock
