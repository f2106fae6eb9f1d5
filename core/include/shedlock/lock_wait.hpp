#pragma once
/// \file
/// Waiting for a held lock: try_lock_for (ShedLock #1223, `flock -w`).

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <functional>
#include <optional>

namespace shedlock {

/// Longest wait try_lock_for accepts: 10 years (3,650 days), as max_lock_at_most_for; a longer
/// one would overflow the monotonic deadline.
inline constexpr std::chrono::milliseconds max_lock_wait{3650LL * 86'400'000LL};

/// Throws configuration_error naming `what` (e.g. "--wait \"-5s\"") unless 0 <= wait <= max_lock_wait.
void validate_lock_wait(const std::string& what, std::chrono::milliseconds wait);

/// How try_lock_for polls. The defaults suit locks held for a second or more; see
/// docs/lock-semantics.md ("Waiting for a lock") for the fairness bound they give.
struct lock_wait_options {
    /// The pause after the first refused attempt; each later pause doubles, up to max_pause.
    std::chrono::milliseconds first_pause{10};
    /// The longest pause between two attempts: once the lock is free, a waiter tries again within
    /// this long. Keep it short beside the holders' hold time.
    std::chrono::milliseconds max_pause{100};
    /// A waiter that has waited this long is senior: it polls every senior_pause from then on, so
    /// a newcomer takes a release from it only by trying within senior_pause of that release.
    std::chrono::milliseconds senior_after{1000};
    std::chrono::milliseconds senior_pause{20};
    /// Asked before each pause; true ends the wait with an empty result (a scheduler stopping, a
    /// signal). Empty: never.
    std::function<bool()> stop_requested;
};

/// Like lock_provider::try_lock, but while the lock is held elsewhere keeps trying until it is
/// acquired or `timeout` has passed on `provider.clock()`'s monotonic time (the pauses pass on
/// that clock too: clock::sleep_for, so a manual_clock test never sleeps). The first attempt is
/// immediate and the last one is made at the deadline, so `timeout` zero is exactly one try_lock.
/// Pauses grow from first_pause to max_pause with random jitter (each is uniform in
/// [pause/2, pause]), so waiters started together do not poll in lockstep.
///
/// Returns empty when the time ran out or stop_requested said so: contention is not an error.
/// A backend error is not retried: storage_error propagates from the attempt that failed.
/// A timeout outside [0, max_lock_wait], or pauses that are not positive, are a configuration_error.
///
/// Thread safety: as try_lock; each call is independent and blocks the calling thread.
[[nodiscard]] std::optional<lock_handle> try_lock_for(lock_provider& provider, const lock_configuration& config,
                                                      std::chrono::milliseconds timeout,
                                                      const lock_wait_options& options = {});

}  // namespace shedlock
