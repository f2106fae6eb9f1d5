#pragma once
/// \file
/// The client-side arithmetic of a lease that the blocking handle (lock_handle) and the
/// asynchronous one (shedlock::asio::lock_handle) share: when the minimum hold and the lease end
/// on the monotonic clock, and what a release may still ask of the backend.

#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/time.hpp>

#include <chrono>

namespace shedlock {

/// What is left of `held`'s minimum hold (lock_at_least_for), measured on `clock`'s monotonic
/// time and rounded up; zero once it has passed.
std::chrono::milliseconds remaining_minimum_hold(const lease& held, const shedlock::clock& clock);

/// True when `held`'s minimum hold ends after its lease (an extension shorter than what was left
/// of lock_at_least_for): only then may a release set lock_until past the stored value.
inline bool minimum_hold_outlasts_lease(const lease& held) noexcept {
    return held.minimum_hold_deadline > held.lease_deadline;
}

/// Sets the monotonic deadlines of a lease the backend just granted for `config`. Counted from
/// the answer, not the request: the hold then lasts at least lock_at_least_for from whenever
/// the backend granted it.
void stamp_acquired(lease& granted, const lock_configuration& config, const shedlock::clock& clock);

/// Sets the deadlines of `extended`, the backend's answer to an extension of `before` by
/// `at_most` with `minimum_hold`. An extension never shortens the minimum hold promised before:
/// a keep-alive that extends with a minimum_hold of 0 still leaves the lock held until
/// locked_at + lock_at_least_for.
void stamp_extended(lease& extended, const lease& before, std::chrono::milliseconds at_most,
                    std::chrono::milliseconds minimum_hold, const shedlock::clock& clock);

}  // namespace shedlock
