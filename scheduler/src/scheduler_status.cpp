// What the scheduler tells observers: its metrics (task runs, durations, lateness, last success,
// next firing), a snapshot of every task for status pages, and its warnings (runs longer than
// lock_at_most_for, now or in the run history; the warning sink).
#include "scheduler_impl.hpp"

#include <shedlock/duration.hpp>

#include <algorithm>
#include <cstdio>

namespace shedlock {
namespace {

double epoch_seconds(timestamp t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

double seconds_between(timestamp from, timestamp to) {
    return std::chrono::duration<double>(to - from).count();
}

}  // namespace

void scheduler::impl::instrument(task_runtime& t) {
    if (!options.metrics) return;
    auto& m = *options.metrics;
    const metric_labels task{{"task", t.task.definition.name}};
    t.duration = &m.histogram("shedlock_task_duration_seconds", "Run time of task bodies that ran (succeeded or failed)",
                              task);
    t.lateness = &m.histogram("shedlock_task_lateness_seconds", "Start of a firing minus its scheduled time", task,
                              {0.01, 0.1, 1, 10});
    t.last_success = &m.gauge("shedlock_task_last_success_timestamp_seconds",
                              "When the task last succeeded on this instance (Unix time; 0: not yet)", task);
    t.next_fire = &m.gauge("shedlock_task_next_fire_timestamp_seconds",
                           "The task's next scheduled firing (Unix time; 0: none)", task);
    // The outcomes alert rules rate() over exist from the start, at 0.
    for (auto o : {run_outcome::succeeded, run_outcome::failed})
        m.counter("shedlock_task_runs_total", "Firings by task and outcome",
                  {{"task", t.task.definition.name}, {"outcome", to_string(o)}});
}

void scheduler::impl::observe(task_runtime& t, const run_record& r) {
    {
        std::lock_guard lock(t.recent_mutex);
        t.recent.push_back(run_summary{r.scheduled_at, r.started_at, r.finished_at, r.outcome, r.message});
        if (t.recent.size() > task_status::recent_capacity) t.recent.pop_front();
    }
    if (auto told = t.backend_failures.note(r.task, r.outcome, r.message, std::chrono::steady_clock::now())) warn(*told);
    if (!options.metrics) return;
    options.metrics->counter("shedlock_task_runs_total", "Firings by task and outcome",
                             {{"task", r.task}, {"outcome", to_string(r.outcome)}}).inc();
    t.lateness->observe(std::max(0.0, seconds_between(r.scheduled_at, r.started_at)));
    if (r.outcome == run_outcome::succeeded || r.outcome == run_outcome::failed)
        t.duration->observe(seconds_between(r.started_at, r.finished_at));
    if (r.outcome == run_outcome::succeeded) t.last_success->set(epoch_seconds(r.finished_at));
}

void scheduler::impl::set_next_fire(task_runtime& t, std::optional<timestamp> at) {
    t.next_fire_ms.store(at ? at->time_since_epoch().count() : -1);
    if (t.next_fire) t.next_fire->set(at ? epoch_seconds(*at) : 0);
}

void scheduler::impl::check_duration(task_runtime& t, const run_record& r) {
    if (t.task.definition.keep_alive) return;  // the watchdog extends the lease
    if (r.outcome != run_outcome::succeeded && r.outcome != run_outcome::failed) return;
    const auto took = r.finished_at - r.started_at;
    if (took <= t.task.lock.lock_at_most_for() || t.warned_long_run.exchange(true)) return;
    warn("task \"" + r.task + "\" ran " + format_duration(took) + ", longer than its lock_at_most_for " +
         format_duration(t.task.lock.lock_at_most_for()) +
         ": another instance may have started it meanwhile; raise lock_at_most_for or enable keep_alive");
}

void scheduler::impl::warn_from_history(const std::vector<detail::prepared_task>& prepared) {
    for (const auto& p : prepared) {
        if (p.definition.keep_alive) continue;
        try {
            std::chrono::milliseconds longest{0};
            for (const auto& r : runs.last_runs(p.definition.name, 50))
                if (r.outcome == run_outcome::succeeded || r.outcome == run_outcome::failed)
                    longest = std::max(longest, r.finished_at - r.started_at);
            if (longest > p.lock.lock_at_most_for())
                warn("task \"" + p.definition.name + "\" has been seen to run " + format_duration(longest) +
                     ", longer than its lock_at_most_for " + format_duration(p.lock.lock_at_most_for()) +
                     "; raise lock_at_most_for or enable keep_alive");
        } catch (const std::exception& e) {
            warn("could not read the run history of task \"" + p.definition.name + "\": " + e.what());
        }
    }
}

void scheduler::impl::warn(const std::string& message) const {
    if (options.warn) options.warn(message);
    else std::fprintf(stderr, "shedlock scheduler: %s\n", message.c_str());
}

std::vector<task_status> scheduler::task_statuses() const {
    std::vector<task_status> out;
    if (!impl_->started.load()) return out;
    out.reserve(impl_->tasks.size());
    for (const auto& t : impl_->tasks) {
        const auto& def = t->task.definition;
        task_status s;
        s.name = def.name;
        s.schedule = def.schedule.describe();
        s.lock_at_most_for = t->task.lock.lock_at_most_for();
        s.enabled = t->task.active;
        s.running = t->running.load();
        if (const auto ms = t->next_fire_ms.load(); ms >= 0) s.next_fire = timestamp{std::chrono::milliseconds{ms}};
        {
            std::lock_guard lock(t->recent_mutex);
            s.lock_name = t->lock_name;
            s.recent.assign(t->recent.begin(), t->recent.end());
        }
        out.push_back(std::move(s));
    }
    return out;
}

const shedlock::clock& scheduler::wall_clock() const noexcept { return impl_->wall; }
lock_provider& scheduler::provider() const noexcept { return impl_->locks; }
run_store& scheduler::runs() const noexcept { return impl_->runs; }

void scheduler::on_stop(std::function<void()> hook) {
    std::lock_guard lock(impl_->hooks_mutex);
    impl_->stop_hooks.push_back(std::move(hook));
}

}  // namespace shedlock
