#pragma once
// Extends a running task's lock every lock_at_most_for / 2: a repeating timer on the executor's
// timer service (one thread, or the scheduler's io_context, for every task), not a thread per task.
// The timer only schedules; the extension (a blocking backend call) runs on the process's shared
// extension pool (at most extension_pool::max_threads threads), never on the timer thread.

#include <shedlock/detail/repeating_timer.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/task_context.hpp>
#include <shedlock/timer_service.hpp>

#include <chrono>

namespace shedlock::detail {

class keep_alive {
public:
    /// `extensions` (may be null) counts each successful extension. An extension that fails marks
    /// the context lock_lost (and cancelled) and ends the keep-alive.
    keep_alive(timer_service& timers, task_context& context, std::chrono::milliseconds at_most,
               metric_counter* extensions = nullptr);
    /// Stops, waiting for an extension under way: after it, the context is never touched again.
    ~keep_alive() = default;
    keep_alive(const keep_alive&) = delete;
    keep_alive& operator=(const keep_alive&) = delete;

private:
    repeating_timer timer_;
};

}  // namespace shedlock::detail
