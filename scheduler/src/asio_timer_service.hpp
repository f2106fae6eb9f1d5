#pragma once
// A timer_service on an Asio executor: the scheduler's keep-alives on its io_context (its timer
// thread), the status heartbeat on the status server's backend thread. No thread of its own.

#include <shedlock/timer_service.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <mutex>

namespace shedlock::detail {

/// Callbacks run on `executor` (one at a time when it is a single thread). Calls pending when the
/// executor stops running are never called (their callbacks are destroyed with the executor's
/// queue). The executor must outlive this object.
class asio_timer_service final : public timer_service {
public:
    explicit asio_timer_service(boost::asio::any_io_executor executor);

    timer_id call_after(std::chrono::steady_clock::duration delay, std::function<void()> callback) override;
    /// The timer is cancelled on the executor (Asio timers are not thread-safe); a callback that
    /// has not started by then is not called.
    void cancel(timer_id id) noexcept override;

private:
    /// The pending timers by id, shared with their handlers (which may outlive this object).
    struct pending_timers {
        std::mutex mutex;
        timer_id last_id = 0;
        std::map<timer_id, std::shared_ptr<boost::asio::steady_timer>> timers;
    };

    boost::asio::any_io_executor executor_;
    std::shared_ptr<pending_timers> pending_ = std::make_shared<pending_timers>();
};

}  // namespace shedlock::detail
