// The firings' registry and the task_signals.hpp functions bodies call.
#include "firing_signals.hpp"

#include <shedlock/asio/task_signals.hpp>
#include <shedlock/detail/task_context_access.hpp>
#include <shedlock/error.hpp>

#include <map>
#include <mutex>

namespace shedlock::asio {
namespace detail {
namespace {

// Global, as task_context is: a body may call the signals from a blocking part on the pool.
std::mutex registry_mutex;
std::map<const task_context*, firing_state*>& registry() {
    static std::map<const task_context*, firing_state*> firings;
    return firings;
}

}  // namespace

void firing_state::request_cancellation() {
    context.request_cancellation();
    cancelled.set();
}

void firing_state::mark_lost() {
    lock_lost.store(true);
    shedlock::detail::task_context_access::mark_lock_lost(context);  // ctx.lock_lost() says it too
    lost.set();
    request_cancellation();
}

firing_registration::firing_registration(firing_state& firing) : firing_(firing) {
    std::lock_guard lock(registry_mutex);
    registry()[&firing_.context] = &firing_;
}

firing_registration::~firing_registration() {
    std::lock_guard lock(registry_mutex);
    registry().erase(&firing_.context);
}

static firing_state& firing_of_locked(const task_context& ctx) {
    const auto found = registry().find(&ctx);
    // `ctx` is not read: it may be the context of a firing that ended (a coroutine the body
    // spawned that outlived it), destroyed with it.
    if (found == registry().end())
        throw configuration_error("task context is not one of a running shedlock::asio::scheduler firing (or its "
                                  "firing has ended); call the task signals from the body that received the context, "
                                  "while it runs");
    return *found->second;
}

firing_state& firing_of(const task_context& ctx) {
    std::lock_guard lock(registry_mutex);
    return firing_of_locked(ctx);
}

std::shared_ptr<firing_state> share_firing(const task_context& ctx) {
    std::lock_guard lock(registry_mutex);  // the firing is destroyed on the strand, never while listed
    auto& firing = firing_of_locked(ctx);
    return firing.shared_from_this();
}

}  // namespace detail

// Each wait holds the firing: a coroutine the body spawned may still wait after the body returned.
boost::asio::awaitable<void> lease_lost(task_context& ctx) {
    const auto firing = detail::share_firing(ctx);
    co_await firing->lost.wait();
}

boost::asio::awaitable<void> cancellation_requested(task_context& ctx) {
    const auto firing = detail::share_firing(ctx);
    co_await firing->cancelled.wait();
}

boost::asio::awaitable<bool> sleep_for(task_context& ctx, std::chrono::steady_clock::duration duration) {
    const auto firing = detail::share_firing(ctx);
    co_return !co_await firing->cancelled.wait_until(std::chrono::steady_clock::now() + duration);
}

bool lock_lost(const task_context& ctx) { return detail::firing_of(ctx).lock_lost.load(); }

std::optional<std::int64_t> fencing_token(const task_context& ctx) { return detail::firing_of(ctx).fencing_token; }

}  // namespace shedlock::asio
