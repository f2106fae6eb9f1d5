#include <shedlock/lease_timing.hpp>

#include <algorithm>

namespace shedlock {

std::chrono::milliseconds remaining_minimum_hold(const lease& held, const shedlock::clock& clock) {
    const auto left = held.minimum_hold_deadline - clock.monotonic_now();
    return std::max(std::chrono::ceil<std::chrono::milliseconds>(left), std::chrono::milliseconds{0});
}

void stamp_acquired(lease& granted, const lock_configuration& config, const shedlock::clock& clock) {
    const monotonic_time answered = clock.monotonic_now();
    granted.minimum_hold_deadline = answered + config.lock_at_least_for();
    granted.lease_deadline = answered + config.lock_at_most_for();
}

void stamp_extended(lease& extended, const lease& before, std::chrono::milliseconds at_most,
                    std::chrono::milliseconds minimum_hold, const shedlock::clock& clock) {
    extended.minimum_hold_until = std::max(extended.minimum_hold_until, before.minimum_hold_until);
    const monotonic_time answered = clock.monotonic_now();
    extended.minimum_hold_deadline = std::max(answered + minimum_hold, before.minimum_hold_deadline);
    extended.lease_deadline = answered + at_most;
}

}  // namespace shedlock

namespace shedlock {
bool lock_provider::minimum_hold_outlasts_lease(const lease& held) noexcept {
    return shedlock::minimum_hold_outlasts_lease(held);
}
}  // namespace shedlock
