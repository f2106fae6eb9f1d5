#include "asio_timer_service.hpp"

#include <boost/asio/post.hpp>

namespace shedlock::detail {

asio_timer_service::asio_timer_service(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

timer_service::timer_id asio_timer_service::call_after(std::chrono::steady_clock::duration delay,
                                                       std::function<void()> callback) {
    auto timer = std::make_shared<boost::asio::steady_timer>(executor_, delay);
    timer_id id = 0;
    {
        std::lock_guard lock(pending_->mutex);
        id = ++pending_->last_id;
        pending_->timers.emplace(id, timer);
    }
    // Started on the executor: the timer is then only ever touched there.
    boost::asio::post(executor_, [pending = pending_, timer, id, callback = std::move(callback)]() mutable {
        timer->async_wait([pending, id, callback = std::move(callback)](const boost::system::error_code& ec) {
            bool live = false;
            {
                std::lock_guard lock(pending->mutex);
                live = pending->timers.erase(id) > 0;
            }
            if (!ec && live) {
                try {
                    callback();
                } catch (...) {
                    // A callback must not throw (timer_service's contract); the executor goes on.
                }
            }
        });
    });
    return id;
}

void asio_timer_service::cancel(timer_id id) noexcept {
    std::shared_ptr<boost::asio::steady_timer> timer;
    {
        std::lock_guard lock(pending_->mutex);
        const auto found = pending_->timers.find(id);
        if (found == pending_->timers.end()) return;
        timer = std::move(found->second);
        pending_->timers.erase(found);
    }
    try {
        boost::asio::post(executor_, [timer] { timer->cancel(); });
    } catch (...) {
        // Could not queue the cancel: the erased id already keeps the callback from being called.
    }
}

}  // namespace shedlock::detail
