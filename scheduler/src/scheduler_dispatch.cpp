// Dispatch: the firings due at one instant go to the worker pool as one batch. The dispatching
// thread only marks each task running and wakes one worker, which wakes the next (up to one per
// firing or worker); lock calls, bodies and run records all happen on the workers, which take the
// batch's firings in order.
#include "scheduler_impl.hpp"

#include <shedlock/error.hpp>

#include <boost/asio/post.hpp>

#include <algorithm>

namespace shedlock {

void scheduler::impl::dispatch(std::vector<firing> batch) {
    for (auto& f : batch) f.overlaps = f.task->running.exchange(true);
    begin_jobs(batch.size());
    const auto workers = std::min(batch.size(), options.worker_threads);
    recruit(std::make_shared<firing_batch>(std::move(batch), workers));
}

void scheduler::impl::recruit(const std::shared_ptr<firing_batch>& batch) {
    if (batch->recruited.fetch_add(1) < batch->workers) boost::asio::post(*pool, [this, batch] { drain(batch); });
}

void scheduler::impl::drain(const std::shared_ptr<firing_batch>& batch) {
    // Each worker recruits the next before it starts: waking a worker can cost the waker its core
    // (on a busy machine for milliseconds), so the timer thread wakes only the first and the
    // batch never waits for a descheduled dispatcher.
    recruit(batch);
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
    } else if (t.task.timing.after_completion()) {
        const auto next = wall.now() + t.task.timing.delay();
        boost::asio::post(io, [this, &t, next] {
            if (!stopping.load()) arm(t, next);
        });
    }
}

void scheduler::impl::begin_jobs(std::size_t n) {
    std::lock_guard lock(jobs_mutex);
    jobs += n;
}

}  // namespace shedlock
