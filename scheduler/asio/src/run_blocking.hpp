#pragma once
// Runs a blocking function on a thread pool and completes on the caller's executor (the strand),
// with `void(std::exception_ptr)`: use_awaitable rethrows what the function threw. The executor
// thread never waits; the caller's executor keeps outstanding work until the completion.
#include <shedlock/asio/detail/deliver.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <exception>

namespace shedlock::asio::detail {

template <typename Function, typename Token>
auto async_run_blocking(boost::asio::thread_pool& pool, Function function, Token&& token) {
    auto initiation = [&pool](auto handler, Function function) {
        auto ex = completion_executor(handler, pool.get_executor());
        boost::asio::post(pool, [ex, f = std::move(function), h = std::move(handler)]() mutable {
            std::exception_ptr failure;
            try {
                f();
            } catch (...) {
                failure = std::current_exception();
            }
            deliver_later(ex, std::move(h), failure);
        });
    };
    return boost::asio::async_initiate<Token, void(std::exception_ptr)>(std::move(initiation), token,
                                                                         std::move(function));
}

}  // namespace shedlock::asio::detail
