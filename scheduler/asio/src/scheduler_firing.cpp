// One firing, a coroutine on the strand, in the order it happens: the lock (waiting for it up to
// wait_for_lock), the keep-alive, the claim and the body (scheduler_claims.cpp), the end of the
// keep-alive, the unlock — strictly after the body returned — and the run record on the pool.
#include "asio_scheduler_impl.hpp"
#include "run_blocking.hpp"
#include "try_lock_op.hpp"

#include <shedlock/duration.hpp>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <utility>

namespace shedlock::asio {
namespace {

using steady = std::chrono::steady_clock;

void append_message(run_record& r, const std::string& text) {
    if (!r.message.empty()) r.message += "; ";
    r.message += text;
}

}  // namespace

// The blocking calls handed to the pool. Named types, not lambdas: a coroutine frame holds them,
// and a frame's field of a type without linkage fails -Wsubobject-linkage in the unity build.
namespace detail {

struct call_body {
    const task_body* body;
    task_context* context;
    void operator()() const { (*body)(*context); }
};

struct append_record {
    run_store* runs;
    const run_record* record;
    void operator()() const { runs->append(*record); }
};

}  // namespace detail

boost::asio::awaitable<void> scheduler::impl::fire(task_runtime& t, timestamp at) {
    if (stopping.load()) {  // shutdown began before this firing started
        t.running = false;
        co_return;
    }
    run_record r;
    r.task = t.task.definition.name;
    r.instance = options.instance;
    r.scheduled_at = at;
    r.started_at = wall.now();
    try {
        const auto config = shedlock::detail::lock_for_firing(t.task, at, options.env);
        r.lock_name = t.lock_name = config.name();  // before the lock is taken: the status shows it while held
        auto handle = co_await acquire(t, config, at);
        if (handle) {
            co_await run_locked(t, std::move(*handle), config, r);
        } else {
            r.outcome = run_outcome::skipped_locked;
            r.message = "lock \"" + config.name() + "\" is held elsewhere";
        }
    } catch (const std::exception& e) {
        r.outcome = run_outcome::lock_error;  // the backend failed, or a rendered name is not valid
        r.message = e.what();
    } catch (...) {
        r.outcome = run_outcome::lock_error;
        r.message = "the lock call threw an exception that is not a std::exception";
    }
    r.finished_at = wall.now();
    observe(t, r);
    co_await record(r);
    check_duration(t, r);
    t.running = false;
}

void scheduler::impl::check_duration(task_runtime& t, const run_record& r) {
    if (t.task.definition.keep_alive) return;  // the keep-alive extends the lease
    if (r.outcome != run_outcome::succeeded && r.outcome != run_outcome::failed) return;
    const auto took = r.finished_at - r.started_at;
    if (took <= t.task.lock.lock_at_most_for() || std::exchange(t.warned_long_run, true)) return;
    warn("task \"" + r.task + "\" ran " + format_duration(took) + ", longer than its lock_at_most_for " +
         format_duration(t.task.lock.lock_at_most_for()) +
         ": another instance may have started it meanwhile; raise lock_at_most_for or enable keep_alive");
}

std::chrono::milliseconds scheduler::impl::wait_for_firing(const task_runtime& t, timestamp at) const {
    const auto wait = t.task.definition.wait_for_lock;
    if (wait.count() <= 0 || t.task.firings.after_completion()) return wait;
    const auto next = t.task.firings.next(at);  // a wait never runs into the next firing
    if (!next) return wait;
    return std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(*next - wall.now()),
                      std::chrono::milliseconds{0}, wait);
}

boost::asio::awaitable<std::optional<lock_handle>> scheduler::impl::acquire(const task_runtime& t,
                                                                            const lock_configuration& config,
                                                                            timestamp at) {
    const auto deadline = steady::now() + wait_for_firing(t, at);
    auto pause = std::chrono::milliseconds{50};
    for (;;) {
        auto handle = co_await detail::async_try_lock_rethrowing(locks, config, boost::asio::use_awaitable);
        if (handle || stopping.load() || steady::now() >= deadline) co_return handle;
        // Held elsewhere: try again after a pause that grows to 1 s, ended early by stop().
        co_await stop_requested.wait_until(std::min(steady::now() + pause, deadline));
        pause = std::min(pause * 2, std::chrono::milliseconds{1000});
    }
}

boost::asio::awaitable<void> scheduler::impl::run_locked(task_runtime& t, lock_handle handle,
                                                         const lock_configuration& config, run_record& r) {
    r.fencing_token = handle.fencing_token();
    auto f = std::make_shared<detail::firing_state>(strand, config.name(), r.scheduled_at, handle.fencing_token());
    f->handle = std::move(handle);
    detail::firing_registration registered(*f);
    t.firing = f;
    if (stopping.load()) f->request_cancellation();
    if (t.task.definition.keep_alive) spawn_job(keep_alive(f, config.lock_at_most_for()));
    else f->keep_alive_done.set();
    co_await run_claimed(t, *f, config, r);
    // The keep-alive ends (an extension under way completes first): none can race the unlock.
    f->finished = true;
    f->keep_alive_timer.cancel();
    co_await f->keep_alive_done.wait();
    t.firing.reset();
    r.lock_lost = f->lock_lost.load();
    r.counters = f->context.counters();
    if (r.lock_lost && r.message.empty())
        r.message = "lock lost: a keep-alive extension failed, another instance may have taken over";
    if (f->handle && f->handle->active()) {
        boost::system::error_code ec;
        co_await f->handle->async_unlock(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (ec) append_message(r, "unlock failed (lock expires at its lock_until): " + ec.message());
    }
}

boost::asio::awaitable<void> scheduler::impl::run_body(task_runtime& t, detail::firing_state& f, run_record& r) {
    std::exception_ptr failure;
    try {
        if (t.body) {
            co_await t.body(f.context);
        } else {
            co_await detail::async_run_blocking(pool->pool(), detail::call_body{&t.task.definition.body, &f.context},
                                                boost::asio::use_awaitable);
        }
    } catch (...) {
        failure = std::current_exception();
    }
    if (!failure) {
        r.outcome = run_outcome::succeeded;
        co_return;
    }
    r.outcome = run_outcome::failed;
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        r.message = e.what();
    } catch (...) {
        r.message = "task threw a non-standard exception";
    }
}

boost::asio::awaitable<void> scheduler::impl::record(const run_record& r) {
    try {
        co_await detail::async_run_blocking(pool->pool(), detail::append_record{&runs, &r}, boost::asio::use_awaitable);
    } catch (const std::exception& e) {
        warn("run record of task \"" + r.task + "\" (" + to_string(r.outcome) + ") was not stored: " + e.what());
    } catch (...) {  // a run store's own exception type: the firing must still end (t.running)
        warn("run record of task \"" + r.task + "\" (" + to_string(r.outcome) +
             ") was not stored: the run store threw an exception that is not a std::exception");
    }
}

}  // namespace shedlock::asio
