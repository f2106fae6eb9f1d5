#include "executor_listeners.hpp"
#include "held_locks.hpp"
#include "keep_alive.hpp"

#include <shedlock/detail/task_context_access.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/locking_task_executor.hpp>

#include <memory>

namespace shedlock {
namespace {

void run_body(const locked_task& task, task_context& context, execution_result& result) {
    try {
        task(context);
        result.outcome = run_outcome::succeeded;
    } catch (const std::exception& e) {
        result.outcome = run_outcome::failed;
        result.message = e.what();
    } catch (...) {
        result.outcome = run_outcome::failed;
        result.message = "task threw a non-standard exception";
    }
}

void append_message(execution_result& result, const std::string& text) {
    if (!result.message.empty()) result.message += "; ";
    result.message += text;
}

/// Why a completion that could not be written matters, for the run record and the warning.
std::string unrecorded_message(const idempotency_claim& claim, bool succeeded, const std::string& cause) {
    const std::string key = "idempotency key \"" + claim.key + "\"";
    if (succeeded)
        return key + " was not marked done: " + cause + "; it stays running until " +
               format_iso_timestamp(claim.expires_at) + ", then the work may run again";
    return key + " was not marked failed: " + cause + "; it is retried after " + format_iso_timestamp(claim.expires_at);
}

/// The store cannot tell why the record is no longer this claim's, so neither can the message.
std::string lost_claim_message(const idempotency_claim& claim, bool succeeded) {
    return "idempotency key \"" + claim.key + "\" was not marked " + (succeeded ? "done" : "failed") +
           ": the claim was no longer this run's (reset, deleted, lost by the store, or expired at " +
           format_iso_timestamp(claim.expires_at) + " and taken over); this run was not recorded with the key" +
           (succeeded ? " and its work may run again" : "");
}

/// complete() after a body that returned, fail() after one that threw. A lost claim or a
/// completion that could not be written goes into the result (flag and message), never away.
void finish_claim(const idempotency_claim& claim, task_context& context, execution_result& result,
                  idempotency_store& store) {
    const bool succeeded = result.outcome == run_outcome::succeeded;
    try {
        const auto finished = succeeded ? store.complete(claim, context.result()) : store.fail(claim, result.message);
        if (finished == finish_status::claim_lost) {
            result.claim_lost = true;
            result.claim_problem = lost_claim_message(claim, succeeded);
        }
    } catch (const error& e) {
        result.claim_unrecorded = true;
        result.claim_problem = unrecorded_message(claim, succeeded, e.what());
    }
    if (!result.claim_problem.empty()) append_message(result, result.claim_problem);
}

/// The body under an idempotency claim: claim, run, complete or fail. A done key or a live claim
/// of another owner leaves the body unrun (result says why).
void run_claimed(const locked_task& task, task_context& context, execution_result& result,
                 const idempotency_options& idem, std::chrono::milliseconds default_claim_for) {
    const auto claim_for = idem.claim_for.count() > 0 ? idem.claim_for : default_claim_for;
    claim_result claimed;
    try {
        claimed = idem.store->claim(idem.key, claim_for, result.fencing_token);
    } catch (const storage_error& e) {
        result.outcome = run_outcome::lock_error;
        result.message = "idempotency key \"" + idem.key + "\" could not be claimed: " + e.what();
        result.error_category = e.category();
        return;
    }
    if (claimed.status == claim_status::already_done) {
        result.outcome = run_outcome::skipped_done;
        result.message = "idempotency key \"" + idem.key + "\" already done at " +
                         format_iso_timestamp(claimed.record.finished_at.value_or(claimed.record.claimed_at)) + " by " +
                         claimed.record.owner;
        return;
    }
    if (claimed.status == claim_status::in_progress) {
        result.outcome = run_outcome::skipped_locked;
        result.message = "idempotency key \"" + idem.key + "\" is " + claimed.record.state + " under " +
                         claimed.record.owner + " until " + format_iso_timestamp(claimed.record.expires_at);
        return;
    }
    result.attempt = claimed.claim->attempt;
    detail::task_context_access::set_claim(context, *claimed.claim);
    run_body(task, context, result);
    finish_claim(*claimed.claim, context, result, *idem.store);
}

void run_task(const locked_task& task, task_context& context, execution_result& result,
              const execute_options& options, std::chrono::milliseconds default_claim_for) {
    if (options.idempotency && options.idempotency->store)
        run_claimed(task, context, result, *options.idempotency, default_claim_for);
    else
        run_body(task, context, result);
}

using steady = std::chrono::steady_clock;

/// The time of a timed try_lock, which also tells the sampler whether try_lock is fast.
std::optional<std::chrono::nanoseconds> acquire_time_since(detail::acquire_sampler& sampler, steady::time_point start) {
    const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now() - start);
    sampler.timed(took);
    return took;
}

/// A nested execute() of a lock this thread already holds: the outer execution locked it.
execution_result run_reentrant(const locked_task& task, const lock_configuration& config, const execute_options& options,
                               detail::executor_listeners* listening) {
    task_context context(config.name(), options.scheduled_at);
    execution_result result;
    const bool timing = listening && listening->wants_duration();
    const auto started = timing ? steady::now() : steady::time_point{};
    run_task(task, context, result, options, config.lock_at_most_for());
    result.counters = context.counters();
    if (listening) {
        const auto event = [&] {
            return execution_event{config, options.task, options.scheduled_at, lock_attempt::reentrant, std::nullopt,
                                   std::nullopt};
        };
        listening->ended(config, lock_attempt::reentrant, result, timing ? steady::now() - started : steady::duration{},
                         event);
    }
    return result;
}

}  // namespace

locking_task_executor::locking_task_executor(lock_provider& provider, metrics_registry& metrics,
                                             const std::string& provider_name)
    : provider_(&provider),
      listeners_(std::make_shared<detail::executor_listeners>(std::make_shared<detail::executor_metrics>(metrics, provider_name))) {}

detail::executor_listeners& locking_task_executor::listeners() {
    if (!listeners_) listeners_ = std::make_shared<detail::executor_listeners>(nullptr);
    return *listeners_;
}

void locking_task_executor::use_timer_service(timer_service& timers) noexcept { timers_ = &timers; }

timer_service& locking_task_executor::timers() const { return timers_ ? *timers_ : shared_timer_service(); }

void locking_task_executor::add_listener(std::shared_ptr<executor_listener> listener) {
    if (listener) listeners().add(std::move(listener));
}

void locking_task_executor::set_listener_error_handler(std::function<void(const std::string&)> handler) {
    listeners().set_error_handler(std::move(handler));
}

void locking_task_executor::report_skipped(const skipped_event& event) {
    if (listeners_) listeners_->skipped(event);
}

const char* to_string(run_outcome outcome) noexcept {
    switch (outcome) {
        case run_outcome::succeeded: return "succeeded";
        case run_outcome::failed: return "failed";
        case run_outcome::skipped_locked: return "skipped_locked";
        case run_outcome::skipped_running: return "skipped_running";
        case run_outcome::lock_error: return "lock_error";
        case run_outcome::skipped_done: return "skipped_done";
    }
    return "failed";
}

run_outcome parse_run_outcome(const std::string& text) {
    for (auto o : {run_outcome::succeeded, run_outcome::failed, run_outcome::skipped_locked,
                   run_outcome::skipped_running, run_outcome::lock_error, run_outcome::skipped_done})
        if (text == to_string(o)) return o;
    throw configuration_error("run outcome \"" + text +
                              "\" is unknown; use succeeded, failed, skipped_locked, skipped_running, lock_error or skipped_done");
}

execution_result locking_task_executor::execute(const locked_task& task, const lock_configuration& config,
                                                const execute_options& options) {
    detail::executor_listeners* const listening = listeners_.get();
    if (detail::executor_holds_on_this_thread(config.name())) return run_reentrant(task, config, options, listening);
    // A wait for the lock is not the time of one try_lock: the acquire histogram leaves it out.
    const bool timed = listening && options.wait_for_lock.count() == 0 && listening->sampler().time_this_call();
    const auto started = timed ? steady::now() : steady::time_point{};
    std::optional<std::chrono::nanoseconds> acquire_time;
    std::optional<lock_handle> handle;
    try {
        handle = options.wait_for_lock.count() > 0
                     ? try_lock_for(*provider_, config, options.wait_for_lock, options.wait)
                     : provider_->try_lock(config);
    } catch (const storage_error& e) {
        execution_result failed{run_outcome::lock_error, e.what(), std::nullopt, false, {}};
        failed.error_category = e.category();
        if (listening) {
            if (timed) acquire_time = acquire_time_since(listening->sampler(), started);
            listening->skipped(skipped_event{{config, options.task, options.scheduled_at, lock_attempt::failed, std::nullopt, acquire_time},
                                             failed.outcome, failed.message});
        }
        return failed;
    }
    if (timed) acquire_time = acquire_time_since(listening->sampler(), started);
    if (!handle) {
        execution_result held{run_outcome::skipped_locked, "lock \"" + config.name() + "\" is held elsewhere",
                              std::nullopt, false, {}};
        if (listening)
            listening->skipped(skipped_event{
                {config, options.task, options.scheduled_at, lock_attempt::held_elsewhere, std::nullopt, acquire_time},
                held.outcome, held.message});
        return held;
    }
    // One return of run_locked's result: the result is built in place, never moved.
    return run_locked(task, std::move(*handle), config, options, acquire_time);
}

execution_result locking_task_executor::run_locked(const locked_task& task, lock_handle handle,
                                                   const lock_configuration& config, const execute_options& options,
                                                   std::optional<std::chrono::nanoseconds> acquire_time) {
    execution_result result;
    result.fencing_token = handle.fencing_token();
    detail::executor_listeners* const listening = listeners_.get();
    // Built only when someone listens: the path without listeners stays what it was.
    const auto event = [&] {
        return execution_event{config, options.task, options.scheduled_at, lock_attempt::acquired, result.fencing_token,
                               acquire_time};
    };
    if (listening) listening->acquired(config, acquire_time, event);
    task_context context(config.name(), options.scheduled_at);
    detail::task_context_access::attach(context, &handle);
    const bool timing = listening && listening->wants_duration();
    const auto started = timing ? steady::now() : steady::time_point{};
    {
        detail::held_lock_scope held(config.name());
        std::unique_ptr<detail::keep_alive> watchdog;
        if (options.keep_alive)
            watchdog = std::make_unique<detail::keep_alive>(timers(), context, config.lock_at_most_for(),
                                                            listening ? listening->extensions_counter() : nullptr);
        run_task(task, context, result, options, config.lock_at_most_for());
    }  // watchdog stopped (an extension under way finished): none can race the unlock below
    result.lock_lost = context.lock_lost();
    result.counters = context.counters();
    if (result.lock_lost && result.message.empty())
        result.message = "lock lost: a keep-alive extension failed, another instance may have taken over";
    // Before the unlock: the metrics lower lock_held there (executor_metrics::on_finished).
    if (listening)
        listening->ended(config, lock_attempt::acquired, result, timing ? steady::now() - started : steady::duration{}, event);
    if (auto final_handle = detail::task_context_access::detach(context)) {
        try {
            final_handle->unlock();
        } catch (const storage_error& e) {
            result.unlock_failed = true;
            result.unlock_problem = e.what();
            append_message(result, std::string("unlock failed (lock expires at its lock_until): ") + e.what());
        }
    }
    return result;
}

}  // namespace shedlock
