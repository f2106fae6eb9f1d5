#pragma once
// A one-shot event on the scheduler's strand: coroutines wait for it (with or without a
// deadline) and set() wakes them all. Boost 1.74 has no awaitable operators or cancellation
// slots: each waiter waits on a timer of its own, which set() cancels.
#include <utility>  // before Boost 1.74 awaitable.hpp, which uses std::exchange

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <vector>

namespace shedlock::asio::detail {

/// Strand-only: every member is called on the strand of `executor`. Must outlive its waiters.
class strand_event {
public:
    explicit strand_event(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}
    strand_event(const strand_event&) = delete;
    strand_event& operator=(const strand_event&) = delete;

    bool is_set() const noexcept { return set_; }
    /// Sets the event and wakes every waiter; later waits complete at once.
    void set();
    /// Completes when set or at `deadline`; true when set.
    boost::asio::awaitable<bool> wait_until(std::chrono::steady_clock::time_point deadline);
    boost::asio::awaitable<void> wait();

private:
    boost::asio::any_io_executor executor_;
    bool set_ = false;
    std::vector<boost::asio::steady_timer*> waiters_;
};

}  // namespace shedlock::asio::detail
