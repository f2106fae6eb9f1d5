// The timer thread: the armed tasks grouped by firing time and one steady_timer for the earliest.
// When it expires, every task that is due goes to the workers as one batch before any next firing
// time is computed (the workers take them from there: scheduler_firing.cpp); each firing runs, or
// is skipped as missed; if the timer woke early against the wall clock, nothing is due yet and it
// waits again.
#include "scheduler_impl.hpp"

#include <algorithm>

namespace shedlock {

void scheduler::impl::arm(task_runtime& t, timestamp at) {
    if (t.due) disarm(t);  // re-arming replaces the task's pending firing
    t.due = at;
    queue[at].push_back(&t);
    set_next_fire(t, at);
    if (!waking && (!timer_at || at < *timer_at)) set_timer(at);
}

void scheduler::impl::disarm(task_runtime& t) {
    const auto slot = queue.find(*t.due);
    auto& armed = slot->second;
    armed.erase(std::find(armed.begin(), armed.end(), &t));
    if (armed.empty()) queue.erase(slot);
    t.due.reset();
}

void scheduler::impl::set_timer(timestamp at) {
    // A wall-clock firing time mapped onto the steady clock now; wake() re-checks the wall clock.
    timer_at = at;
    timer.expires_after(until(at));  // cancels the previous wait (its handler sees an error)
    timer.async_wait([this](const boost::system::error_code& ec) {
        if (!ec && !stopping.load()) wake();
    });
}

precise_time scheduler::impl::precise_now() const {
    // wall.now() is truncated to the millisecond: a wait computed from it would end up to 1 ms
    // after its firing time, and "due" tested with a tolerance for that would run up to 1 ms early.
    if (&wall == &system_clock::instance()) return std::chrono::system_clock::now();
    return wall.now();
}

std::chrono::nanoseconds scheduler::impl::until(timestamp at) const {
    return std::max(at - precise_now(), std::chrono::nanoseconds{0});
}

void scheduler::impl::wake() {
    timer_at.reset();
    waking = true;
    const auto reached = precise_now();
    arm_list skipped;  // missed firings: their tasks are re-armed after the batch went out
    auto batch = take_due(reached, skipped);
    const auto now = std::chrono::floor<std::chrono::milliseconds>(reached);
    arm_list fired;
    fired.reserve(batch.size());
    for (const auto& f : batch) fired.emplace_back(f.task, f.at);
    if (!batch.empty()) {
        firings.fetch_add(batch.size());
        dispatch(std::move(batch));  // first: computing the next firing times is not urgent
    }
    next_firing_cache cache;
    for (const auto& [t, at] : fired) arm_next(*t, at, now, cache);
    for (const auto& [t, next] : skipped) arm(*t, next);
    waking = false;
    if (!queue.empty()) set_timer(queue.begin()->first);
}

std::vector<firing> scheduler::impl::take_due(precise_time reached, arm_list& skipped) {
    const auto now = std::chrono::floor<std::chrono::milliseconds>(reached);
    std::vector<firing> due;
    while (!queue.empty() && queue.begin()->first <= reached) {
        const auto slot = queue.extract(queue.begin());
        const auto at = slot.key();
        due.reserve(due.size() + slot.mapped().size());
        for (task_runtime* t : slot.mapped()) {
            t->due.reset();
            const auto& times = t->task.firings;
            if (!times.after_completion() && now - at > t->task.definition.misfire_grace) {
                // Suspended or stalled: skip this firing (and any others missed), never replay a burst.
                missed.fetch_add(1);
                if (const auto next = times.next_after_now(at, now)) skipped.emplace_back(t, *next);
                continue;
            }
            due.push_back(firing{t, at, false, nullptr});
        }
    }
    return due;
}

void scheduler::impl::arm_next(task_runtime& t, timestamp at, timestamp now, next_firing_cache& cache) {
    const auto& times = t.task.firings;
    if (times.after_completion()) return;  // re-armed when the run completes
    // Walking the cron fields costs about a microsecond, and this thread shares the cores with
    // the workers running the burst: the tasks of a burst on one trigger compute it once.
    if (!cache.firings || cache.at != at || !cache.firings->same_times(times)) {
        auto next = times.next(at);
        // A late firing (within its grace) runs once; the next slot is still in the future.
        if (next && *next <= now) next = times.next_after_now(at, now);
        cache = {&times, at, next};
    }
    if (cache.next) arm(t, *cache.next);
}

}  // namespace shedlock
