// One firing on a worker: lock, body, keep-alive, unlock (the core executor), then the run record.
#include "scheduler_impl.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

#include <algorithm>
#include <cstdio>

namespace shedlock {
namespace {

/// Publishes the running body's context for stop(), and withdraws it however the body ends.
class context_registration {
public:
    context_registration(task_runtime& t, task_context& ctx) : t_(t) {
        std::lock_guard lock(t_.context_mutex);
        t_.context = &ctx;
    }
    ~context_registration() {
        std::lock_guard lock(t_.context_mutex);
        t_.context = nullptr;
    }
    context_registration(const context_registration&) = delete;
    context_registration& operator=(const context_registration&) = delete;

private:
    task_runtime& t_;
};

}  // namespace

std::chrono::milliseconds scheduler::impl::wait_for_firing(const task_runtime& t, timestamp at) const {
    const auto wait = t.task.definition.wait_for_lock;
    if (wait.count() <= 0 || t.task.timing.after_completion()) return wait;  // fixed_delay: no next firing yet
    // A wait never runs into the next firing: that firing makes its own attempt (and wait).
    const auto next = t.task.timing.next(at);
    if (!next) return wait;
    return std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(*next - wall.now()),
                      std::chrono::milliseconds{0}, wait);
}

std::optional<run_record> scheduler::impl::run_firing(task_runtime& t, timestamp at) {
    if (stopping.load()) return std::nullopt;  // shutdown began before this firing started
    const auto& def = t.task.definition;
    run_record r;
    r.task = def.name;
    r.instance = options.instance;
    r.scheduled_at = at;
    r.started_at = wall.now();
    try {
        const auto config = detail::lock_for_firing(t.task, at, options.env);
        r.lock_name = config.name();
        if (t.task.templated) {  // before the lock is taken: the status shows it while held
            std::lock_guard lock(t.recent_mutex);
            t.lock_name = config.name();
        }
        // Two captures: a std::function keeps up to 16 bytes in place, a third would allocate.
        auto body = [this, &t](task_context& ctx) {
            context_registration registered(t, ctx);
            if (stopping.load()) ctx.request_cancellation();
            t.task.definition.body(ctx);
        };
        auto run = execute_options{def.keep_alive, at, detail::claim_for_firing(t.task, at, options)};
        run.wait_for_lock = wait_for_firing(t, at);
        run.wait.stop_requested = [this] { return stopping.load(); };
        run.task = def.name;
        const auto result = executor.execute(body, config, run);
        r.outcome = result.outcome;
        r.message = result.message;
        r.fencing_token = result.fencing_token;
        r.counters = result.counters;
        r.lock_lost = result.lock_lost;
        // The work may be done again (once the claim expires, or at once when it was no longer
        // this run's): the run record alone is too quiet.
        if (result.claim_unrecorded || result.claim_lost) warn("task \"" + def.name + "\": " + result.claim_problem);
    } catch (const std::exception& e) {
        r.outcome = run_outcome::lock_error;  // e.g. a rendered lock name that is not valid
        r.message = e.what();
        report_skipped(t, r);
    }
    r.finished_at = wall.now();
    record(r);
    observe(t, r);
    check_duration(t, r);
    if (t.task.renders_by_time) sweep_rendered_locks();
    return r;
}

run_record scheduler::impl::skipped_running(const task_runtime& t, timestamp at) const {
    run_record r;
    r.task = t.task.definition.name;
    try {
        r.lock_name = detail::lock_for_firing(t.task, at, options.env).name();
    } catch (const std::exception&) {
        r.lock_name = t.task.lock.name();  // the name rendered at start()
    }
    r.instance = options.instance;
    r.scheduled_at = at;
    r.started_at = r.finished_at = wall.now();
    r.outcome = run_outcome::skipped_running;
    r.message = "the previous run of this task is still running on this instance";
    return r;
}

void scheduler::impl::report_skipped(const task_runtime& t, const run_record& r) {
    std::optional<lock_configuration> rendered;
    try {
        rendered = detail::lock_for_firing(t.task, r.scheduled_at, options.env);
    } catch (const std::exception&) {
        // The name rendered at start() stands in for one that does not render.
    }
    executor.report_skipped(skipped_event{
        {rendered ? *rendered : t.task.lock, r.task, r.scheduled_at, lock_attempt::none, std::nullopt, std::nullopt},
        r.outcome, r.message});
}

void scheduler::impl::record(const run_record& r) {
    try {
        runs.append(r);
    } catch (const std::exception& e) {
        warn("run record of task \"" + r.task + "\" (" + to_string(r.outcome) + ") was not stored: " + e.what());
    }
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

}  // namespace shedlock
