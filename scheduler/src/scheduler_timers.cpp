// The timer thread: arms one steady_timer per task and decides, when it expires, whether the
// firing runs, is skipped as missed, or the timer woke early against the wall clock.
#include "scheduler_impl.hpp"

namespace shedlock {

void scheduler::impl::arm(task_runtime& t, timestamp at) {
    // Wall-clock firing time mapped onto the steady clock now; re-checked when the timer expires.
    const auto wait = std::max(at - wall.now(), std::chrono::milliseconds{0});
    t.timer.expires_after(wait);
    t.timer.async_wait([this, &t, at](const boost::system::error_code& ec) {
        if (!ec && !stopping.load()) on_timer(t, at);
    });
}

void scheduler::impl::on_timer(task_runtime& t, timestamp at) {
    const auto now = wall.now();
    if (now + std::chrono::milliseconds{1} < at) {  // steady and wall clock drifted apart
        arm(t, at);
        return;
    }
    const auto& timing = t.task.timing;
    if (!timing.after_completion() && now - at > t.task.definition.misfire_grace) {
        // Suspended or stalled: skip this firing (and any others missed), never replay a burst.
        missed.fetch_add(1);
        if (const auto next = timing.next_after_now(at, now)) arm(t, *next);
        return;
    }
    if (!timing.after_completion()) {
        auto next = timing.next(at);
        // A late firing (within its grace) runs once; the next slot is still in the future.
        if (next && *next <= now) next = timing.next_after_now(at, now);
        if (next) arm(t, *next);
    }
    firings.fetch_add(1);
    dispatch(t, at, nullptr);
}

}  // namespace shedlock
