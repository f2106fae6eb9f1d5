#include "strand_event.hpp"

#include <utility>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace shedlock::asio::detail {

/// Lists a waiter's timer while it waits, and withdraws it however the wait ends (a coroutine
/// frame destroyed unresumed included).
class waiter_entry {
public:
    waiter_entry(std::vector<boost::asio::steady_timer*>& waiters, boost::asio::steady_timer& timer)
        : waiters_(waiters), timer_(timer) {
        waiters_.push_back(&timer_);
    }
    ~waiter_entry() { waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &timer_)); }
    waiter_entry(const waiter_entry&) = delete;
    waiter_entry& operator=(const waiter_entry&) = delete;

private:
    std::vector<boost::asio::steady_timer*>& waiters_;
    boost::asio::steady_timer& timer_;
};

void strand_event::set() {
    set_ = true;
    for (auto* timer : waiters_) timer->cancel();
}

boost::asio::awaitable<bool> strand_event::wait_until(std::chrono::steady_clock::time_point deadline) {
    if (set_) co_return true;
    boost::asio::steady_timer timer(executor_, deadline);
    waiter_entry entry(waiters_, timer);
    boost::system::error_code ignored;  // cancelled by set(), or expired
    co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
    co_return set_;
}

boost::asio::awaitable<void> strand_event::wait() {
    while (!set_) co_await wait_until(std::chrono::steady_clock::time_point::max());
}

}  // namespace shedlock::asio::detail
