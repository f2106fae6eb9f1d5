// Stopping the asio scheduler: every coroutine is a job counted on the strand; stop requests
// cancellation, waits for the jobs with a grace period (then warns and waits on), and never
// blocks an executor thread (the blocking stop() refuses one; the destructor stops in the
// background there).
#include "asio_scheduler_impl.hpp"

#include <shedlock/error.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <future>

namespace shedlock::asio {

boost::asio::awaitable<void> scheduler::impl::run_job(std::shared_ptr<impl> self, boost::asio::awaitable<void> work) {
    try {
        co_await std::move(work);
    } catch (const std::exception& e) {
        self->warn(std::string("internal error in a scheduler coroutine: ") + e.what());
    } catch (...) {  // escaping, it would end the job uncounted: stop() would wait for it forever
        self->warn("internal error in a scheduler coroutine: an exception that is not a std::exception");
    }
    self->end_job();
}

boost::asio::awaitable<void> scheduler::impl::run_stop(std::shared_ptr<impl> self, std::chrono::milliseconds grace,
                                                       detail::unique_function<void()> done) {
    try {
        co_await self->stop_all(grace);
    } catch (const std::exception& e) {
        self->warn(std::string("stop failed: ") + e.what());
    } catch (...) {
        self->warn("stop failed: an exception that is not a std::exception");
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
        run_stop_hooks();
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

}  // namespace shedlock::asio
