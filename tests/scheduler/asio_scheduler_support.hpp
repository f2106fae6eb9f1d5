#pragma once
// What the asio scheduler tests share: one thread running an io_context (the application's
// executor), and polling helpers.
#include <chrono>
#include <optional>
#include <utility>  // before Boost 1.74 awaitable.hpp, which uses std::exchange

#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <thread>
#include <vector>

namespace shedlock::test {

/// An io_context run by `threads` threads until destroyed (the work guard keeps run() going
/// between firings).
class io_thread {
public:
    explicit io_thread(int threads = 1) : work_(boost::asio::make_work_guard(io_)) {
        for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
    }
    ~io_thread() {
        work_.reset();
        for (auto& t : threads_) t.join();
    }
    io_thread(const io_thread&) = delete;
    io_thread& operator=(const io_thread&) = delete;

    boost::asio::io_context& io() noexcept { return io_; }
    boost::asio::io_context::executor_type executor() noexcept { return io_.get_executor(); }

private:
    boost::asio::io_context io_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
    std::vector<std::thread> threads_;
};

/// Suspends the calling coroutine for `d` (a body that waits without blocking its thread).
inline boost::asio::awaitable<void> wait(std::chrono::milliseconds d) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, d);
    co_await timer.async_wait(boost::asio::use_awaitable);
}

}  // namespace shedlock::test
