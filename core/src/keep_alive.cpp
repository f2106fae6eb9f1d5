#include "keep_alive.hpp"

#include <algorithm>

namespace shedlock::detail {
namespace {

/// Extending at half the lease leaves the other half as margin for a slow backend call (and for
/// the other timers of the service, which wait meanwhile).
std::chrono::milliseconds interval_of(std::chrono::milliseconds at_most) {
    return std::max(at_most / 2, std::chrono::milliseconds{1});
}

}  // namespace

keep_alive::keep_alive(timer_service& timers, task_context& context, std::chrono::milliseconds at_most,
                       metric_counter* extensions)
    : timer_(timers, interval_of(at_most),
             [&context, at_most, extensions]() -> std::optional<std::chrono::steady_clock::duration> {
                 if (!context.extend(at_most)) return std::nullopt;  // extend() marked it lock_lost and cancelled
                 if (extensions) extensions->inc();
                 return interval_of(at_most);
             }) {}

}  // namespace shedlock::detail
