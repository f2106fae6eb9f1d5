// The timers: one coroutine per task on the strand waits for its next firing time, skips firings
// found later than misfire_grace, and starts each firing as a job of its own (a fixed_delay task
// awaits its firing, whose end decides the next). A firing while the previous one of the task
// still runs is recorded as skipped_running.
#include "asio_scheduler_impl.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace shedlock::asio {
namespace {

/// How long until the wall-clock time `at`, for a steady-clock wait (woken early, it waits again).
std::chrono::steady_clock::duration until(const shedlock::clock& wall, timestamp at) {
    return std::max<std::chrono::steady_clock::duration>(at - wall.now(), std::chrono::milliseconds{0});
}

}  // namespace

boost::asio::awaitable<void> scheduler::impl::task_loop(task_runtime& t) {
    const auto& times = t.task.firings;
    auto next = times.first(wall.now());
    while (next && !stopping.load()) {
        const auto at = *next;
        t.next_fire = at;
        t.timer.expires_after(until(wall, at));
        boost::system::error_code ec;
        co_await t.timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (stopping.load()) break;
        const auto now = wall.now();
        if (now < at) continue;  // the steady clock ran ahead of the wall clock: wait again
        if (!times.after_completion() && now - at > t.task.definition.misfire_grace) {
            missed.fetch_add(1);  // suspended or stalled: skip, never replay a burst
            next = times.next_after_now(at, now);
            continue;
        }
        firings.fetch_add(1);
        if (times.after_completion()) {
            t.running = true;
            co_await fire(t, at);
            next = wall.now() + times.delay();
            continue;
        }
        if (t.running) {
            spawn_job(skipped_running(t, at));
        } else {
            t.running = true;
            spawn_job(fire(t, at));
        }
        next = times.next(at);
        if (next && *next <= now) next = times.next_after_now(at, now);  // a late firing runs once
    }
    t.next_fire.reset();
}

boost::asio::awaitable<void> scheduler::impl::skipped_running(task_runtime& t, timestamp at) {
    run_record r;
    r.task = t.task.definition.name;
    try {
        r.lock_name = shedlock::detail::lock_for_firing(t.task, at, options.env).name();
    } catch (const std::exception&) {
        r.lock_name = t.task.lock.name();  // the name rendered at start()
    }
    r.instance = options.instance;
    r.scheduled_at = at;
    r.started_at = r.finished_at = wall.now();
    r.outcome = run_outcome::skipped_running;
    r.message = "the previous run of this task is still running on this instance";
    observe(t, r);
    co_await record(r);
}

}  // namespace shedlock::asio
