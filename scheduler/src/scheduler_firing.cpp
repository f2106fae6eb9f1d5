// The worker side of a firing, in the order it happens: the timer thread (scheduler_timers.cpp)
// hands the firings due at one instant to dispatch() as one batch; dispatch() only marks each task
// running and wakes one worker, which wakes the next (up to one per firing or worker); each worker
// takes the batch's firings in order (take_firings) and runs each (run_one -> run_firing): lock,
// body, keep-alive, unlock in the core executor (locking_task_executor.cpp), then the run record,
// the metrics and the status (observe, scheduler_status.cpp).
#include "scheduler_impl.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

#include <boost/asio/post.hpp>

#include <algorithm>

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

void scheduler::impl::dispatch(std::vector<firing> batch) {
    for (auto& f : batch) f.overlaps = f.task->running.exchange(true);
    begin_jobs(batch.size());
    const auto workers = std::min(batch.size(), options.worker_threads);
    add_worker(std::make_shared<firing_batch>(std::move(batch), workers));
}

void scheduler::impl::add_worker(const std::shared_ptr<firing_batch>& batch) {
    if (batch->workers_added.fetch_add(1) < batch->workers) boost::asio::post(*pool, [this, batch] { take_firings(batch); });
}

void scheduler::impl::take_firings(const std::shared_ptr<firing_batch>& batch) {
    // Each worker adds the next before it starts: waking a worker can cost the waker its core
    // (on a busy machine for milliseconds), so the timer thread wakes only the first and the
    // batch never waits for a descheduled dispatcher.
    add_worker(batch);
    auto& firings = batch->firings;
    std::size_t done = 0;
    for (auto i = batch->next.fetch_add(1); i < firings.size(); i = batch->next.fetch_add(1), ++done) run_one(firings[i]);
    // Counted once per worker and batch, not per firing (run_one does not): every worker takes
    // this mutex.
    if (done > 0) {
        std::lock_guard lock(jobs_mutex);
        if ((jobs -= done) == 0) jobs_done.notify_all();
    }
}

void scheduler::impl::run_one(const firing& f) {
    task_runtime& t = *f.task;
    if (f.overlaps) {  // leaves `running` to the run in flight
        auto r = skipped_running(t, f.at);
        report_skipped(t, r);
        record(r);
        observe(t, r);
        if (f.manual) f.manual->set_value(r);
        return;
    }
    auto r = run_firing(t, f.at);
    t.running.store(false);
    if (f.manual) {
        if (r) f.manual->set_value(*r);
        else f.manual->set_exception(std::make_exception_ptr(configuration_error(
                 "run_now(\"" + t.task.definition.name + "\"): the scheduler stopped before the task started")));
    } else if (t.task.firings.after_completion()) {
        const auto next = wall.now() + t.task.firings.delay();
        boost::asio::post(io, [this, &t, next] {
            if (!stopping.load()) arm(t, next);
        });
    }
}

void scheduler::impl::begin_jobs(std::size_t n) {
    std::lock_guard lock(jobs_mutex);
    jobs += n;
}

std::chrono::milliseconds scheduler::impl::wait_for_firing(const task_runtime& t, timestamp at) const {
    const auto wait = t.task.definition.wait_for_lock;
    if (wait.count() <= 0 || t.task.firings.after_completion()) return wait;  // fixed_delay: no next firing yet
    // A wait never runs into the next firing: that firing makes its own attempt (and wait).
    const auto next = t.task.firings.next(at);
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

}  // namespace shedlock
