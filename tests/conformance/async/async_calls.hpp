#pragma once
// The asynchronous lock calls of the conformance adapter (async_lock_provider.hpp), made through
// the public token API only and waited for on the calling (test) thread, in one of two styles:
// - awaitable: each call is a coroutine co_spawn'ed on the adapter's io_context (use_awaitable
//   inside, use_future outside), so initiation and completion happen on its thread;
// - callbacks: the call is initiated on the calling thread with a completion lambda that fulfils
//   a promise; it completes on the service's executor.

#include "async_interface.hpp"

#include <shedlock/asio/lock_handle.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <memory>
#include <optional>

namespace shedlock::conformance {

/// What an acquisition or an extension completed with: the error code and the handle (an
/// extension that failed hands back the old lease, still active).
struct lock_outcome {
    asio::error_code error;
    std::optional<asio::lock_handle> handle;
};

/// One style of driving the token API. Thread safety: concurrent calls from several threads.
class async_calls {
public:
    virtual ~async_calls() = default;
    virtual lock_outcome try_lock(asio::lock_service& service, const lock_configuration& config) = 0;
    /// Consumes `handle` (async_unlock).
    virtual asio::error_code unlock(asio::lock_handle handle) = 0;
    /// Consumes `handle` (async_extend); the outcome carries the handle to use next.
    virtual lock_outcome extend(asio::lock_handle handle, std::chrono::milliseconds at_most,
                                std::chrono::milliseconds minimum_hold) = 0;
};

/// Coroutines on `io` (which another thread runs).
std::unique_ptr<async_calls> make_awaitable_calls(boost::asio::io_context& io);
/// Completion lambdas, initiated on the caller's thread.
std::unique_ptr<async_calls> make_callback_calls();

}  // namespace shedlock::conformance
