#include "async_calls.hpp"

#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <future>

namespace shedlock::conformance {
namespace {

namespace net = boost::asio;
using std::chrono::milliseconds;

// Plain use_awaitable: a failure arrives as the system_error it throws.
net::awaitable<lock_outcome> awaited_try_lock(asio::lock_service& service, lock_configuration config) {
    lock_outcome outcome;
    try {
        outcome.handle = co_await asio::async_try_lock(service, config, net::use_awaitable);
    } catch (const boost::system::system_error& e) {
        outcome.error = e.code();
    }
    co_return outcome;
}

net::awaitable<asio::error_code> awaited_unlock(asio::lock_handle handle) {
    asio::error_code error;
    try {
        co_await handle.async_unlock(net::use_awaitable);
    } catch (const boost::system::system_error& e) {
        error = e.code();
    }
    co_return error;
}

// redirect_error, not a throw: a failed extension hands back the lease, which a thrown error
// would destroy (and so release in the background) with the optional it came in.
net::awaitable<lock_outcome> awaited_extend(asio::lock_handle handle, milliseconds at_most, milliseconds minimum_hold) {
    lock_outcome outcome;
    outcome.handle = co_await handle.async_extend(at_most, minimum_hold, net::redirect_error(net::use_awaitable, outcome.error));
    co_return outcome;
}

class awaitable_calls final : public async_calls {
public:
    explicit awaitable_calls(net::io_context& io) : io_(io) {}

    lock_outcome try_lock(asio::lock_service& service, const lock_configuration& config) override {
        return net::co_spawn(io_, awaited_try_lock(service, config), net::use_future).get();
    }
    asio::error_code unlock(asio::lock_handle handle) override {
        return net::co_spawn(io_, awaited_unlock(std::move(handle)), net::use_future).get();
    }
    lock_outcome extend(asio::lock_handle handle, milliseconds at_most, milliseconds minimum_hold) override {
        return net::co_spawn(io_, awaited_extend(std::move(handle), at_most, minimum_hold), net::use_future).get();
    }

private:
    net::io_context& io_;
};

// The promise moves into the completion, so the waiting thread never outlives an object the
// completing thread still touches.
class callback_calls final : public async_calls {
public:
    lock_outcome try_lock(asio::lock_service& service, const lock_configuration& config) override {
        std::promise<lock_outcome> promise;
        auto answer = promise.get_future();
        asio::async_try_lock(service, config,
                             [p = std::move(promise)](asio::error_code e, std::optional<asio::lock_handle> h) mutable {
                                 p.set_value(lock_outcome{e, std::move(h)});
                             });
        return answer.get();
    }
    asio::error_code unlock(asio::lock_handle handle) override {
        std::promise<asio::error_code> promise;
        auto answer = promise.get_future();
        handle.async_unlock([p = std::move(promise)](asio::error_code e) mutable { p.set_value(e); });
        return answer.get();
    }
    lock_outcome extend(asio::lock_handle handle, milliseconds at_most, milliseconds minimum_hold) override {
        std::promise<lock_outcome> promise;
        auto answer = promise.get_future();
        handle.async_extend(at_most, minimum_hold,
                            [p = std::move(promise)](asio::error_code e, std::optional<asio::lock_handle> h) mutable {
                                p.set_value(lock_outcome{e, std::move(h)});
                            });
        return answer.get();
    }
};

}  // namespace

std::unique_ptr<async_calls> make_awaitable_calls(net::io_context& io) { return std::make_unique<awaitable_calls>(io); }

std::unique_ptr<async_calls> make_callback_calls() { return std::make_unique<callback_calls>(); }

}  // namespace shedlock::conformance
