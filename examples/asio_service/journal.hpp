#pragma once
// The shared journal the CI test reads: one line per body that ran, appended by every process
// of the cluster to one file, so that a firing run twice shows as two lines.

#include <shedlock/time.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

namespace asio_service {

/// One line per run: `<task> <scheduled_at> <pid> <token> <begin_ms> <end_ms>`, the token "-"
/// when the backend has no fencing, begin/end the body's wall-clock span in ms since the epoch
/// (the test checks that runs of one task never overlap).
///
/// Each line is ONE write(2) on a descriptor opened with O_APPEND: lines of several processes
/// never interleave. The write runs on a thread of the journal's own, never on an executor
/// thread: even a local file write can stall (the kernel throttles writers when much is
/// unwritten), and a body that blocks stalls every timer and handler of its executor.
class journal {
public:
    /// Opens (creates) `path`; throws std::system_error naming the path when it cannot.
    explicit journal(const std::string& path);
    /// Waits for the appends in flight.
    ~journal();
    journal(const journal&) = delete;
    journal& operator=(const journal&) = delete;

    /// The line of a run that began at `begin` and ends now.
    static std::string line(const std::string& task, shedlock::timestamp scheduled_at,
                            std::optional<std::int64_t> fencing, std::chrono::system_clock::time_point begin);

    /// Appends `text` on the journal's thread; completes with `void(std::exception_ptr)` (a
    /// failed write) on the handler's executor. `co_await lines.async_append(l, use_awaitable)`.
    template <typename Token>
    auto async_append(std::string text, Token&& token) {
        auto initiation = [this](auto handler, std::string text) {
            auto ex = boost::asio::prefer(boost::asio::get_associated_executor(handler, writer_.get_executor()),
                                          boost::asio::execution::outstanding_work.tracked);
            boost::asio::post(writer_, [this, ex, text = std::move(text), h = std::move(handler)]() mutable {
                std::exception_ptr failure;
                try {
                    write(text);
                } catch (...) {
                    failure = std::current_exception();
                }
                boost::asio::post(ex, [h = std::move(h), failure]() mutable { std::move(h)(failure); });
            });
        };
        return boost::asio::async_initiate<Token, void(std::exception_ptr)>(std::move(initiation), token,
                                                                            std::move(text));
    }

private:
    void write(const std::string& text) const;

    std::string path_;
    int fd_;
    boost::asio::thread_pool writer_{1};
};

}  // namespace asio_service
