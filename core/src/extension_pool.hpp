#pragma once
// Where keep-alive extensions run: a few threads shared by every keep-alive of the process, so that
// a slow or frozen backend holds up other extensions only once all of them wait, and never holds
// up the timer thread (the scheduler's firings, the other timers).

#include <chrono>
#include <functional>

namespace shedlock::detail {

/// Runs blocking jobs (backend calls) off the timer thread. One thread is started with the first
/// job; another only when a job has waited in the queue (grow_if_waiting), up to a fixed cap
/// whatever the number of tasks, so fast extensions of many tasks need one thread. They live until
/// the process ends.
class extension_pool {
public:
    /// The most threads the pool ever has, whatever the number of tasks. Measured with 50 tasks on
    /// PostgreSQL 100 ms away (pool_size 16 or 50, lease 2 s): with 8, a round of extensions took
    /// longer than the lease and 18-20 of 50 locks were lost; with 32, none (each task's lock is
    /// then waiting for a connection, as it did with a thread per task).
    static constexpr unsigned max_threads = 32;

    virtual ~extension_pool() = default;
    /// Queues `job` (first come, first run). Throws only when no thread exists and none can be
    /// started (std::system_error).
    virtual void post(std::function<void()> job) = 0;
    /// Starts one more thread (below the cap) when the oldest queued job has waited `patience`
    /// with no thread free: the others are blocked (a slow or frozen backend). Called from a timer
    /// a little after post(), since a blocked pool cannot notice it itself.
    virtual void grow_if_waiting(std::chrono::steady_clock::duration patience) noexcept = 0;
};

/// The process's one pool, created at first use and never destroyed.
extension_pool& shared_extension_pool();

}  // namespace shedlock::detail
