#pragma once
/// \file
/// The scheduler on the application's executor: no thread of its own for timers; every timer,
/// firing and keep-alive is a coroutine on a strand of the executor the application runs. Task
/// bodies are coroutines (`boost::asio::awaitable<void>(task_context&)`) or today's blocking
/// functions, which run on a small pool so that they never hold an executor thread.

#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/detail/deliver.hpp>
#include <shedlock/asio/detail/unique_function.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/asio/task_signals.hpp>
#include <shedlock/run_store.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/task_definition.hpp>
#include <shedlock/task_registry.hpp>

#include <utility>  // before Boost 1.74 awaitable.hpp, which uses std::exchange

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::asio {

/// A task body that suspends instead of blocking (it awaits timers, sockets, the lock signals of
/// task_signals.hpp). It runs on the scheduler's strand: a body must not block its thread.
using async_task_body = std::function<boost::asio::awaitable<void>(task_context&)>;

/// A scheduled task with a coroutine body. `definition` carries the trigger and lock policy
/// (its `body` is not used).
struct async_task {
    task_definition definition;
    async_task_body body;
};

/// Builds an async_task from a trigger and the task_option modifiers of make_task, e.g.
/// `make_async_task("sync", body, cron("0 */5 * * * ?"), lock_at_most_for("PT1M"), keep_alive())`.
template <typename... Options>
async_task make_async_task(std::string name, async_task_body body, const Options&... options) {
    return async_task{make_task(std::move(name), task_body{}, options...), std::move(body)};
}

/// Runs tasks on the application's executor. A firing is one coroutine: async lock -> (claim of
/// the idempotency key) -> the body (awaited; a blocking body on the pool) -> complete/fail of
/// the claim -> async unlock, strictly after the body's completion -> the run record (appended
/// on the pool). Outcomes as shedlock::scheduler. A task never overlaps itself on one instance.
///
/// Options: shedlock::scheduler_options. Used: worker_threads (the pool for blocking bodies and
/// run-record appends), default_lock_at_most_for, env, instance, warn, clock, destructor_grace.
/// Not supported (start() refuses them when set): claims (pass a claim_service), metrics,
/// listeners. rendered_lock_retention is ignored: expired records of names rendered from
/// {date}/{datetime} are not swept by this scheduler.
///
/// Thread safety: add/start/stop from one controlling thread; stats(), running(), instance(),
/// warn(), get_executor(), on_stop() and async_task_statuses() from any.
/// Every piece of its state lives on one strand of `executor`: the executor may be run by one
/// thread or many. The services, run store and executor must outlive the scheduler, and the
/// executor must be running for firings to happen and for stop() to return.
class scheduler {
public:
    scheduler(boost::asio::any_io_executor executor, lock_service& locks, run_store& runs,
              claim_service* claims = nullptr, scheduler_options options = {});
    /// stop(options.destructor_grace) when still running; on a thread of the executor (where it
    /// must not wait) it only starts the stop, which finishes in the background. Never throws.
    ~scheduler();
    scheduler(const scheduler&) = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Adds a task with a blocking body (run on the pool) or a coroutine body. Checked at start();
    /// adding after start() throws configuration_error.
    void add(task_definition task);
    void add(async_task task);
    void add(const task_registry& registry);

    /// Validates every task exactly as shedlock::scheduler::start() does (the same
    /// configuration_error texts, check_tasks), then arms the timers on the strand. Throws before
    /// anything runs. A scheduler starts once.
    void start();

    /// Stops from a thread that is NOT one of the executor's (it waits; on an executor thread it
    /// would wait for work that only that thread can do, so it throws configuration_error there:
    /// use async_stop). The check knows io_context executors and strands of them; on another
    /// executor's thread it cannot tell, and such a call deadlocks. Idempotent. See async_stop.
    void stop(std::chrono::milliseconds grace);

    /// No new firings; timers cancelled; running bodies get cancellation requested (task_signals:
    /// cancellation_requested / sleep_for wake) and `grace` to return; past it the scheduler warns
    /// and still waits (their locks are released and records written as they return). Completes
    /// with `void()` once every firing has ended; never blocks a thread.
    template <typename Token>
    auto async_stop(std::chrono::milliseconds grace, Token&& token) {
        auto initiation = [this](auto handler, std::chrono::milliseconds grace) {
            auto ex = detail::completion_executor(handler, strand_executor());
            begin_stop(grace, [ex, h = std::move(handler)]() mutable { detail::deliver(ex, std::move(h)); });
        };
        return boost::asio::async_initiate<Token, void()>(std::move(initiation), token, grace);
    }

    scheduler_stats stats() const;
    bool running() const noexcept;

    /// Every task as shedlock::scheduler::task_statuses() tells it (name, schedule, lock name of
    /// the current or last firing, lock_at_most_for, enabled, running, next firing, this
    /// instance's recent runs), read on the strand: completes with
    /// `void(std::vector<task_status>)`, empty before start(). For status pages (serve_status in
    /// <shedlock/asio/status_server.hpp>); never blocks a thread.
    template <typename Token>
    auto async_task_statuses(Token&& token) {
        auto initiation = [this](auto handler) {
            auto ex = detail::completion_executor(handler, strand_executor());
            read_statuses([ex, h = std::move(handler)](std::vector<task_status> s) mutable {
                detail::deliver(ex, std::move(h), std::move(s));
            });
        };
        return boost::asio::async_initiate<Token, void(std::vector<task_status>)>(std::move(initiation), token);
    }
    /// The name this scheduler writes to its run records (options.instance, or the generated one).
    const std::string& instance() const noexcept;
    /// Reports `message` to the scheduler's warning sink (options.warn, else stderr), for the
    /// components that serve it (the status server).
    void warn(const std::string& message) const;
    /// The run store and wall clock it was given (read by the status server's /api/runs).
    run_store& runs() const noexcept;
    const shedlock::clock& wall_clock() const noexcept;
    /// The strand of the given executor that every piece of the scheduler's state lives on.
    boost::asio::any_io_executor get_executor() const;
    /// `hook` runs on the strand when stop begins (before bodies are awaited), e.g. to close a
    /// status server sharing the executor; posted there at once when the stop has begun already.
    void on_stop(std::function<void()> hook);

private:
    struct impl;
    boost::asio::any_io_executor strand_executor() const;
    void begin_stop(std::chrono::milliseconds grace, detail::unique_function<void()> done);
    void read_statuses(detail::unique_function<void(std::vector<task_status>)> done);

    std::shared_ptr<impl> impl_;
};

}  // namespace shedlock::asio
