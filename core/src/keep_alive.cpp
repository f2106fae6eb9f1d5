#include "keep_alive.hpp"

#include "extension_pool.hpp"

#include <algorithm>

namespace shedlock::detail {
namespace {

/// Extending at half the lease leaves the other half as margin for a slow backend call (and for
/// other extensions waiting for a thread of the shared extension pool).
std::chrono::milliseconds interval_of(std::chrono::milliseconds at_most) {
    return std::max(at_most / 2, std::chrono::milliseconds{1});
}

/// How long an extension may wait for a free thread of the pool before another is started.
constexpr std::chrono::milliseconds waiting_patience{20};

}  // namespace

keep_alive::keep_alive(timer_service& timers, task_context& context, std::chrono::milliseconds at_most,
                       metric_counter* extensions)
    : timer_(timers, interval_of(at_most),
             [&context, at_most, extensions]() -> std::optional<std::chrono::steady_clock::duration> {
                 if (!context.extend(at_most)) return std::nullopt;  // extend() marked it lock_lost and cancelled
                 if (extensions) extensions->inc();
                 return interval_of(at_most);
             },
             [&timers](std::function<void()> job) {
                 shared_extension_pool().post(std::move(job));
                 try {
                     timers.call_after(waiting_patience, [] { shared_extension_pool().grow_if_waiting(waiting_patience); });
                 } catch (...) {
                     // The job is queued: without the check it waits for a thread already there.
                 }
             }) {}

}  // namespace shedlock::detail
