#pragma once
/// \file
/// A callback repeated on a timer_service until it says stop, which its owner can stop for good.
/// Used by the keep-alive and the status heartbeat; not a user API.

#include <shedlock/timer_service.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace shedlock::detail {

/// Calls `step` on `timers` after `first`, then again after each delay it returns, until it
/// returns nullopt or stop() is called. stop() waits for a step under way: once it returns, `step`
/// is never called again and is destroyed, so a step may refer to what its owner destroys next.
/// Not copyable or movable (the pending call refers to its state, not to the object).
class repeating_timer {
public:
    using step = std::function<std::optional<std::chrono::steady_clock::duration>()>;
    /// Runs a job elsewhere (a thread pool), or throws when it cannot take it.
    using runner = std::function<void(std::function<void()>)>;

    /// `timers` (and `run_on`'s pool) must outlive this object. Without `run_on`, `step` runs on
    /// the timer thread itself; with it, the timer only hands `step` to `run_on`, so a step that
    /// blocks (a backend call) delays neither the service's other timers nor the next ones of its
    /// kind. The next call is armed when a step returns, so steps of one timer never overlap.
    repeating_timer(timer_service& timers, std::chrono::steady_clock::duration first, step s,
                    runner run_on = nullptr);
    ~repeating_timer() { stop(); }
    repeating_timer(const repeating_timer&) = delete;
    repeating_timer& operator=(const repeating_timer&) = delete;

    /// Idempotent. Never call it from inside `step` (it would wait for itself). A step handed to
    /// the runner and not started yet is then never called.
    void stop() noexcept;

private:
    struct state;
    /// Arms the next call; the pending call keeps the state alive, never the owner.
    static void arm(const std::shared_ptr<state>& s, std::chrono::steady_clock::duration delay);
    /// On the timer thread: runs the step, or hands it to the runner.
    static void fire(const std::shared_ptr<state>& s);
    static void run_step(const std::shared_ptr<state>& s);

    std::shared_ptr<state> state_;
};

}  // namespace shedlock::detail
