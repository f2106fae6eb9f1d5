#pragma once
/// \file
/// Where the library's timed work runs: keep-alive extensions and the status heartbeat are timers
/// on one executor, never a thread each.

#include <chrono>
#include <cstdint>
#include <functional>

namespace shedlock {

/// Calls callbacks after a steady-clock delay, one at a time, on one executor that the service
/// owns or borrows: the scheduler's is its Asio io_context (its timer thread), and a
/// locking_task_executor used alone shares shared_timer_service(). An application that runs its
/// own event loop implements it there (a locks-only program needs no Asio for that).
///
/// A callback that blocks holds up all the others, so the library's keep-alives only schedule
/// here: their extensions (backend calls) run on a small pool shared by the process, started on
/// demand and capped whatever the number of tasks. A callback must not throw (one that does is
/// dropped silently by shared_timer_service()).
///
/// Thread safety: call_after() and cancel() from any thread, including from a callback.
class timer_service {
public:
    /// Names one pending call for cancel(); never 0.
    using timer_id = std::uint64_t;

    virtual ~timer_service() = default;
    /// Calls `callback` once, `delay` from now (never inside this call, even for a delay of 0).
    virtual timer_id call_after(std::chrono::steady_clock::duration delay, std::function<void()> callback) = 0;
    /// Drops the pending call `id` (unknown, fired or cancelled ids are ignored). Never waits for
    /// a callback that has already started: an owner that must not be called once it is gone
    /// guards its state (detail::repeating_timer does).
    virtual void cancel(timer_id id) noexcept = 0;
};

/// The process's one timer thread, started at the first call_after() and joined at exit: every
/// keep-alive of every locking_task_executor that was not given another service shares it.
timer_service& shared_timer_service();

}  // namespace shedlock
