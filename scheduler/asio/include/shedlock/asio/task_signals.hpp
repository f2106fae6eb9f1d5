#pragma once
/// \file
/// What a coroutine body run by shedlock::asio::scheduler can await about its own firing: the
/// loss of its lease and a request to cancel (shutdown or lost lease). task_context is core's
/// class and knows nothing of Asio; these functions find the firing that runs `ctx`.
///
/// Call them from the body's own coroutine (it runs on the scheduler's strand), while the body
/// runs. A context that no asio scheduler is running gets configuration_error. A coroutine the
/// body spawned that is still waiting in one of them when the body returns keeps the firing's
/// state alive until its wait ends (sleep_for at its deadline; the others only if the event
/// comes): the lock is released as usual; a call after the firing ended gets configuration_error.
///
/// What task_context itself reports for a coroutine body: cancellation_requested() (set on stop
/// and on a lost lease), lock_lost(), fencing_token(), claim(), counters and set_result() work;
/// extend() is a blocking call and returns false there: keep_alive() extends instead.

#include <shedlock/task_context.hpp>

#include <utility>  // before Boost 1.74 awaitable.hpp, which uses std::exchange

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace shedlock::asio {

/// Completes when a keep-alive extension found the lease lost (taken over, expired, or failing
/// past lock_until); at once if it already was. Cancellation has been requested by then. Only a
/// task with keep_alive() has its lease checked: without it this completes never.
boost::asio::awaitable<void> lease_lost(task_context& ctx);

/// Completes when cancellation is requested: the scheduler stops or the lease was lost.
boost::asio::awaitable<void> cancellation_requested(task_context& ctx);

/// Waits `duration`, or less when cancellation is requested first. True when the full duration
/// passed, false when cancelled (Boost 1.74 has no awaitable operators: this is the wait a body
/// can be woken from).
boost::asio::awaitable<bool> sleep_for(task_context& ctx, std::chrono::steady_clock::duration duration);

/// True once the lease of the firing running `ctx` was lost.
bool lock_lost(const task_context& ctx);

/// The fencing token of the firing's acquisition; empty when the backend has none.
std::optional<std::int64_t> fencing_token(const task_context& ctx);

}  // namespace shedlock::asio
