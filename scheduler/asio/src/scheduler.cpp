// Lifecycle of the asio scheduler: validate-then-start, stop with grace (waiting on the strand,
// never on an executor thread), jobs.
#include "asio_scheduler_impl.hpp"

#include <shedlock/error.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/utf8.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <future>
#include <iostream>

namespace shedlock::asio {

scheduler::impl::impl(boost::asio::any_io_executor executor, lock_service& l, run_store& r, claim_service* c,
                      scheduler_options o)
    : strand(boost::asio::make_strand(std::move(executor))),
      locks(l),
      runs(r),
      claims(c),
      options(std::move(o)),
      wall(options.clock ? *options.clock : system_clock::instance()) {
    if (options.instance.empty()) options.instance = instance_id();
}

void scheduler::impl::check_supported() const {
    const auto refuse_field = [](const std::string& what, const std::string& fix) {
        throw configuration_error("scheduler not started: scheduler_options::" + what +
                                  " is not supported by shedlock::asio::scheduler; " + fix);
    };
    if (options.claims) refuse_field("claims", "pass a claim_service to its constructor instead (pooled_claim_service)");
    if (options.metrics) refuse_field("metrics", "leave it null");
    if (!options.listeners.empty()) refuse_field("listeners", "leave them empty");
}

scheduler_options scheduler::impl::checked_options() const {
    auto checked = options;
    checked.claims = claims ? const_cast<detail::claims_marker*>(&marker) : nullptr;
    return checked;
}

void scheduler::impl::warn(const std::string& message) const {
    if (options.warn) {
        try {
            options.warn(message);
            return;
        } catch (...) {
        }
    }
    std::cerr << "shedlock asio scheduler: " << message << '\n';
}

boost::asio::awaitable<void> scheduler::impl::run_job(std::shared_ptr<impl> self, boost::asio::awaitable<void> work) {
    try {
        co_await std::move(work);
    } catch (const std::exception& e) {
        self->warn(std::string("internal error in a scheduler coroutine: ") + e.what());
    }
    self->end_job();
}

boost::asio::awaitable<void> scheduler::impl::run_stop(std::shared_ptr<impl> self, std::chrono::milliseconds grace,
                                                       detail::unique_function<void()> done) {
    try {
        co_await self->stop_all(grace);
    } catch (const std::exception& e) {
        self->warn(std::string("stop failed: ") + e.what());
    }
    if (done) done();
}

namespace {

/// True on a thread that runs `ex` (an io_context's executor or a strand of one): a blocking
/// stop() there would wait for work only that thread can do.
bool runs_in_this_thread(const boost::asio::any_io_executor& ex) {
    using io_executor = boost::asio::io_context::executor_type;
    if (const auto* io = ex.target<io_executor>()) return io->running_in_this_thread();
    if (const auto* s = ex.target<boost::asio::strand<io_executor>>()) return s->running_in_this_thread();
    return false;
}

}  // namespace

void scheduler::impl::spawn_job(boost::asio::awaitable<void> work) {
    ++jobs;
    boost::asio::co_spawn(strand, impl::run_job(shared_from_this(), std::move(work)), boost::asio::detached);
}

void scheduler::impl::end_job() {
    if (--jobs == 0 && stopping.load()) idle.set();
}

boost::asio::awaitable<void> scheduler::impl::stop_all(std::chrono::milliseconds grace) {
    if (!stopping.exchange(true)) {
        stop_requested.set();
        for (auto& t : tasks) {
            t->timer.cancel();
            if (t->firing) t->firing->request_cancellation();
        }
        if (jobs == 0) idle.set();
    }
    if (co_await idle.wait_until(std::chrono::steady_clock::now() + grace)) co_return;
    std::string names;
    for (auto& t : tasks)
        if (t->running) names += (names.empty() ? "\"" : ", \"") + t->task.definition.name + "\"";
    warn("stop: task(s) " + names + " still running after the grace period; waiting for them to return "
         "(their locks are released when they do, or expire at lock_at_most_for)");
    co_await idle.wait();
}

scheduler::scheduler(boost::asio::any_io_executor executor, lock_service& locks, run_store& runs,
                     claim_service* claims, scheduler_options options)
    : impl_(std::make_shared<impl>(std::move(executor), locks, runs, claims, std::move(options))) {}

scheduler::~scheduler() {
    try {
        if (!impl_->started.load() || impl_->stop_begun.load()) return;
        if (runs_in_this_thread(impl_->strand.get_inner_executor()) || impl_->strand.running_in_this_thread()) {
            impl_->warn("scheduler destroyed on a thread of its executor without stop(): stopping in the background");
            begin_stop(impl_->options.destructor_grace, {});
        } else {
            stop(impl_->options.destructor_grace);
        }
    } catch (const std::exception& e) {
        impl_->warn(std::string("stop in destructor failed: ") + e.what());
    }
}

void scheduler::add(task_definition task) {
    if (impl_->started.load())
        throw configuration_error("task \"" + printable_text(task.name) + "\" added after start(); add every task before starting");
    impl_->definitions.push_back(std::move(task));
    impl_->bodies.emplace_back();
}

void scheduler::add(async_task task) {
    // Validation checks the definition's body: a coroutine body stands in as a body never called.
    if (task.body) task.definition.body = [](task_context&) {};
    else task.definition.body = nullptr;
    add(std::move(task.definition));
    impl_->bodies.back() = std::move(task.body);
}

void scheduler::add(const task_registry& registry) {
    for (auto& t : registry.tasks()) add(std::move(t));
}

void scheduler::start() {
    auto& s = *impl_;
    if (s.started.load()) throw configuration_error("scheduler already started; a scheduler starts once");
    s.check_supported();
    const auto checked = s.checked_options();
    check_tasks(s.definitions, checked);  // the blocking scheduler's checks and texts
    auto prepared = shedlock::detail::prepare_tasks(s.definitions, checked, s.wall.now());
    // prepare_tasks keeps the order of the definitions: their bodies line up.
    for (std::size_t i = 0; i < prepared.size(); ++i)
        s.tasks.push_back(std::make_unique<task_runtime>(std::move(prepared[i]), std::move(s.bodies[i]), s.strand));
    s.pool = std::make_unique<blocking_pool>(s.options.worker_threads);
    s.started.store(true);
    boost::asio::post(s.strand, [self = impl_] {
        if (self->stopping.load()) return;
        for (auto& t : self->tasks)
            if (t->task.active) self->spawn_job(self->task_loop(*t));
    });
}

boost::asio::any_io_executor scheduler::strand_executor() const { return impl_->strand; }

void scheduler::begin_stop(std::chrono::milliseconds grace, detail::unique_function<void()> done) {
    if (!impl_->started.load()) {
        if (done) boost::asio::post(impl_->strand, std::move(done));
        return;
    }
    impl_->stop_begun.store(true);
    boost::asio::co_spawn(impl_->strand, impl::run_stop(impl_, grace, std::move(done)), boost::asio::detached);
}

void scheduler::stop(std::chrono::milliseconds grace) {
    if (!impl_->started.load()) return;
    if (runs_in_this_thread(impl_->strand.get_inner_executor()) || impl_->strand.running_in_this_thread())
        throw configuration_error("scheduler stop() called on a thread of the scheduler's executor, where it would wait "
                                  "for work only that thread can do; co_await async_stop(grace, use_awaitable) there");
    auto stopped = std::make_shared<std::promise<void>>();  // shared: set_value may still run as wait() returns
    auto done = stopped->get_future();
    begin_stop(grace, [stopped] { stopped->set_value(); });
    done.wait();
}

scheduler_stats scheduler::stats() const { return {impl_->firings.load(), impl_->missed.load()}; }

bool scheduler::running() const noexcept { return impl_->started.load() && !impl_->stopping.load(); }

}  // namespace shedlock::asio
