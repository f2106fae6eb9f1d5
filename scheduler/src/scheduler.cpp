// Lifecycle of the scheduler: validate-then-start, stop with grace, manual runs.
#include "scheduler_impl.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/utf8.hpp>

#include <boost/asio/post.hpp>

namespace shedlock {

scheduler::impl::impl(lock_provider& l, run_store& r, scheduler_options o)
    : locks(l),
      runs(r),
      options(std::move(o)),
      wall(options.clock ? *options.clock : system_clock::instance()),
      executor(options.metrics ? locking_task_executor(l, *options.metrics, options.provider_name)
                               : locking_task_executor(l)) {
    if (options.instance.empty()) options.instance = instance_id();
    executor.use_timer_service(keep_alive_timers);
    for (auto& listener : options.listeners) executor.add_listener(listener);
    if (!options.listeners.empty()) executor.set_listener_error_handler([this](const std::string& line) { warn(line); });
}

scheduler::scheduler(lock_provider& locks, run_store& runs, scheduler_options options)
    : impl_(std::make_unique<impl>(locks, runs, std::move(options))) {}

scheduler::~scheduler() {
    try {
        stop(impl_->options.destructor_grace);
    } catch (const std::exception& e) {
        impl_->warn(std::string("stop in destructor failed: ") + e.what());
    }
}

void scheduler::add(task_definition task) {
    if (impl_->started.load())
        throw configuration_error("task \"" + printable_text(task.name) + "\" added after start(); add every task before starting");
    impl_->definitions.push_back(std::move(task));
}

void scheduler::add(const task_registry& registry) {
    for (auto& t : registry.tasks()) add(std::move(t));
}

namespace {

void check_options(const scheduler_options& options) {
    if (options.worker_threads == 0)
        throw configuration_error("scheduler worker_threads is 0; it needs at least 1 to run tasks");
    if (options.rendered_lock_retention && options.rendered_lock_retention->count() <= 0)
        throw configuration_error("scheduler rendered_lock_retention " + format_duration(*options.rendered_lock_retention) +
                                  " must be positive; give e.g. P1D, or none to keep the records");
}

}  // namespace

void check_tasks(const std::vector<task_definition>& tasks, const scheduler_options& options) {
    check_options(options);
    const shedlock::clock& wall = options.clock ? *options.clock : system_clock::instance();
    (void)detail::prepare_tasks(tasks, options, wall.now());
}

void scheduler::start() {
    auto& s = *impl_;
    if (s.started.load()) throw configuration_error("scheduler already started; a scheduler starts once");
    check_options(s.options);
    const auto now = s.wall.now();
    auto prepared = detail::prepare_tasks(s.definitions, s.options, now);  // throws before anything runs
    s.warn_from_history(prepared);
    s.pool.emplace(s.options.worker_threads);
    arm_list firsts;
    for (auto& p : prepared) {
        s.tasks.push_back(std::make_unique<task_runtime>(std::move(p)));
        auto& t = *s.tasks.back();
        s.instrument(t);
        if (!t.task.active) continue;
        if (const auto first = t.task.firings.first(now)) firsts.emplace_back(&t, *first);
    }
    s.work.emplace(boost::asio::make_work_guard(s.io));
    boost::asio::post(s.io, [&s, firsts = std::move(firsts)] {
        for (const auto& [t, at] : firsts) s.arm(*t, at);
    });
    s.started.store(true);
    s.timer_thread = std::thread([&s] { s.io.run(); });
}

void scheduler::stop(std::chrono::milliseconds grace) {
    auto& s = *impl_;
    if (!s.started.load() || s.stopped.exchange(true)) return;
    s.stopping.store(true);
    boost::asio::post(s.io, [&s] {
        s.timer.cancel();
        std::lock_guard lock(s.hooks_mutex);
        for (auto& hook : s.stop_hooks) hook();
    });
    // The timer thread runs on until the workers are done: it extends the locks of the bodies
    // still running (keep-alive) through the grace period and after it.
    std::vector<std::string> still_running;
    for (auto& t : s.tasks) {
        std::lock_guard lock(t->context_mutex);
        if (t->context) t->context->request_cancellation();
    }
    {
        std::unique_lock lock(s.jobs_mutex);
        if (!s.jobs_done.wait_for(lock, grace, [&s] { return s.jobs == 0; })) {
            for (auto& t : s.tasks)
                if (t->running.load()) still_running.push_back(t->task.definition.name);
        }
    }
    if (!still_running.empty()) {
        std::string names;
        for (const auto& n : still_running) names += (names.empty() ? "\"" : ", \"") + n + "\"";
        s.warn("stop: task(s) " + names + " still running after the grace period; waiting for them to return "
               "(their locks are released when they do, or expire at lock_at_most_for)");
    }
    s.pool->join();
    s.work.reset();
    s.timer_thread.join();  // returns once the cancelled wait and the last keep-alive have ended
}

run_record scheduler::run_now(const std::string& task) {
    auto& s = *impl_;
    if (!s.started.load() || s.stopping.load())
        throw configuration_error("run_now(\"" + task + "\"): the scheduler is not running; call start() first");
    task_runtime* found = nullptr;
    std::string known;
    for (auto& t : s.tasks) {
        if (t->task.definition.name == task) found = t.get();
        known += (known.empty() ? "" : ", ") + t->task.definition.name;
    }
    if (!found) throw configuration_error("run_now: no task named \"" + task + "\"; known tasks: " + known);
    auto done = std::make_shared<std::promise<run_record>>();
    auto result = done->get_future();
    s.dispatch({firing{found, s.wall.now(), false, done}});
    return result.get();
}

scheduler_stats scheduler::stats() const { return {impl_->firings.load(), impl_->missed.load()}; }

bool scheduler::running() const noexcept { return impl_->started.load() && !impl_->stopping.load(); }

}  // namespace shedlock
