// What the asio scheduler tells observers (the status server): every task as
// shedlock::scheduler::task_statuses() shows it, read on the strand where that state lives; the
// stop hooks; the instance name and the warning sink.
#include "asio_scheduler_impl.hpp"

#include <boost/asio/post.hpp>

namespace shedlock::asio {

void scheduler::impl::observe(task_runtime& t, const run_record& r) {
    t.recent.push_back(run_summary{r.scheduled_at, r.started_at, r.finished_at, r.outcome, r.message});
    if (t.recent.size() > task_status::recent_capacity) t.recent.pop_front();
    if (auto told = t.backend_failures.note(r.task, r.outcome, r.message, std::chrono::steady_clock::now())) warn(*told);
}

std::vector<task_status> scheduler::impl::task_statuses() const {
    std::vector<task_status> out;
    out.reserve(tasks.size());
    for (const auto& t : tasks) {
        task_status s;
        s.name = t->task.definition.name;
        s.schedule = t->task.definition.schedule.describe();
        s.lock_name = t->lock_name;
        s.lock_at_most_for = t->task.lock.lock_at_most_for();
        s.enabled = t->task.active;
        s.running = t->running;
        s.next_fire = t->next_fire;
        s.recent.assign(t->recent.begin(), t->recent.end());
        out.push_back(std::move(s));
    }
    return out;
}

void scheduler::impl::run_stop_hooks() {
    std::vector<std::function<void()>> hooks;
    {
        std::lock_guard lock(hooks_mutex);
        hooks_ran = true;
        hooks.swap(stop_hooks);
    }
    for (auto& hook : hooks) {
        try {
            hook();
        } catch (const std::exception& e) {
            warn(std::string("a stop hook failed: ") + e.what());
        }
    }
}

void scheduler::read_statuses(detail::unique_function<void(std::vector<task_status>)> done) {
    // `tasks` is filled by start() before the strand sees any of it, and never changes after.
    boost::asio::post(impl_->strand, [self = impl_, done = std::move(done)]() mutable {
        done(self->started.load() ? self->task_statuses() : std::vector<task_status>{});
    });
}

const std::string& scheduler::instance() const noexcept { return impl_->options.instance; }

run_store& scheduler::runs() const noexcept { return impl_->runs; }

const shedlock::clock& scheduler::wall_clock() const noexcept { return impl_->wall; }

void scheduler::warn(const std::string& message) const { impl_->warn(message); }

boost::asio::any_io_executor scheduler::get_executor() const { return impl_->strand; }

void scheduler::on_stop(std::function<void()> hook) {
    std::unique_lock lock(impl_->hooks_mutex);
    if (!impl_->hooks_ran) return impl_->stop_hooks.push_back(std::move(hook));
    lock.unlock();
    boost::asio::post(impl_->strand, std::move(hook));
}

}  // namespace shedlock::asio
