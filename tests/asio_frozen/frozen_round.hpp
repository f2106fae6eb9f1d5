#pragma once
// One round of the "nothing blocks the executor" test: lock calls against a backend that stopped
// answering, on ONE thread running the io_context, beside a 50 ms ticker on the same io_context.

#include <shedlock/asio/error.hpp>
#include <shedlock/asio/lock_service.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace shedlock::test {

struct frozen_report {
    bool warmed_up = false;                   ///< a lock call succeeded before the freeze
    std::vector<asio::error_code> errors;     ///< one per call made while frozen
    int acquired = 0;                         ///< calls that were granted the lock (must be 0)
    int held_elsewhere = 0;                   ///< calls that completed "held elsewhere" (must be 0)
    std::chrono::milliseconds waited{0};      ///< from the calls' start to the last completion
    std::size_t ticks = 0;                    ///< ticker ticks while the calls waited
    std::chrono::microseconds max_late{0};    ///< the latest tick (blocking shows here)
    std::chrono::microseconds median_late{0};
    bool recovered = false;                   ///< a lock call succeeded after the thaw
    int failures_after_thaw = 0;              ///< calls that failed before that one

    /// One line for the test log: the figures a reader compares with the timeout.
    std::string summary(const std::string& backend) const;
};

/// On the calling thread (the only one that runs `io`): a warm-up lock and unlock; `freeze()`;
/// `calls` async_try_lock calls on distinct names, all in flight at once, while a ticker ticks
/// every 50 ms; waits (at most `limit`) until every call completed; `thaw()`; then lock calls
/// every 100 ms until one succeeds (at most `limit`).
frozen_report frozen_round(boost::asio::io_context& io, asio::lock_service& locks, const std::function<void()>& freeze,
                           const std::function<void()>& thaw, int calls = 16,
                           std::chrono::milliseconds limit = std::chrono::milliseconds{60'000});

}  // namespace shedlock::test
