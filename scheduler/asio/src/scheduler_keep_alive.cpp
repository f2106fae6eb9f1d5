// The keep-alive of one firing: a coroutine on the strand beside the body that extends the lease
// every lock_at_most_for / 2 through the handle's async_extend. The lease is lost when an
// extension says so (taken over, expired) or keeps failing until lock_until has passed; then the
// firing is marked lost and its cancellation requested (task_signals.hpp wakes the body).
#include "asio_scheduler_impl.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace shedlock::asio {

boost::asio::awaitable<void> scheduler::impl::keep_alive(std::shared_ptr<detail::firing_state> f,
                                                         std::chrono::milliseconds at_most) {
    auto period = at_most / 2;
    while (!f->finished && f->handle) {
        f->keep_alive_timer.expires_after(period);
        boost::system::error_code ec;
        co_await f->keep_alive_timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (f->finished) break;
        auto current = std::move(*f->handle);
        f->handle.reset();  // the extension holds it until it completes
        auto next = co_await current.async_extend(at_most, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (!ec && next) {
            f->handle = std::move(next);
            period = at_most / 2;
            continue;
        }
        if (!ec) {  // no longer the owner of a live lock: nothing left to unlock
            f->mark_lost();
            warn("task lock \"" + f->context.lock_name() + "\": keep-alive found the lease lost; cancellation requested");
            break;
        }
        // The backend failed: `next` holds the lease again. Lost once lock_until has passed.
        f->handle = std::move(next);
        if (f->handle && locks.clock().now() < f->handle->lock_until()) {
            period = at_most / 8;  // retry sooner while the lease still runs
            continue;
        }
        f->mark_lost();
        warn("task lock \"" + f->context.lock_name() + "\": keep-alive extensions failed past lock_until (" +
             ec.message() + "); cancellation requested");
        break;
    }
    f->keep_alive_done.set();
}

}  // namespace shedlock::asio
