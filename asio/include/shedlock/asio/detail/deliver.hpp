#pragma once
/// \file
/// How every asynchronous operation of shedlock hands its result to the caller's handler: on the
/// handler's associated executor (the service's when it has none), which is kept busy
/// (outstanding work) until then, so that io_context::run() does not return under a pending
/// lock call.

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>

#include <utility>

namespace shedlock::asio::detail {

/// The executor `handler` completes on, holding outstanding work while the operation runs. Its
/// own type, not any_io_executor: some (use_future's) carry no execution context.
template <typename Handler, typename Fallback>
auto completion_executor(const Handler& handler, const Fallback& fallback) {
    return boost::asio::prefer(boost::asio::get_associated_executor(handler, fallback),
                               boost::asio::execution::outstanding_work.tracked);
}

/// Calls `handler(args...)` on `ex`: inline when the caller already runs there (the service
/// completed on the handler's own executor), queued otherwise.
template <typename Executor, typename Handler, typename... Args>
void deliver(const Executor& ex, Handler&& handler, Args&&... args) {
    boost::asio::dispatch(ex, [h = std::forward<Handler>(handler), ... a = std::forward<Args>(args)]() mutable {
        std::move(h)(std::move(a)...);
    });
}

/// As deliver, but always queued: for results known before the operation started (a handle
/// already used, a bad argument), which must not complete inside the initiating call.
template <typename Executor, typename Handler, typename... Args>
void deliver_later(const Executor& ex, Handler&& handler, Args&&... args) {
    boost::asio::post(ex, [h = std::forward<Handler>(handler), ... a = std::forward<Args>(args)]() mutable {
        std::move(h)(std::move(a)...);
    });
}

}  // namespace shedlock::asio::detail
