#pragma once
/// \file
/// try_lock_for's pause schedule, exposed for tests (and the bound docs/ states), not for
/// applications: kept out of <shedlock/lock_wait.hpp>.

#include <shedlock/lock_wait.hpp>

#include <chrono>

namespace shedlock {

/// The pause before the attempt after `refused` refused ones of a waiter that has waited
/// `waited`, before jitter: first_pause doubled per refusal up to max_pause, or senior_pause once
/// senior.
std::chrono::milliseconds wait_pause(const lock_wait_options& options, int refused, std::chrono::milliseconds waited);

}  // namespace shedlock
