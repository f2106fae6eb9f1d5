#pragma once
// Instances of a service usually start together (a rolling deploy, a cluster restart). Each
// finds the table missing and creates it; the checks here make them do so at the same moment.

#include <shedlock/lock_provider.hpp>

#include <cstdint>
#include <functional>
#include <memory>

namespace shedlock::test {

/// Runs `start` on `instances` threads released together (each builds its own provider or run
/// store); fails the test with the first error message when any of them threw.
void check_simultaneous_start(int instances, const std::function<void()>& start);

/// `rounds` times: `reset` (drop the table), then `instances` providers built at the same moment
/// by `make` (each creating the missing table), then each acquires and releases one lock in
/// turn. The first acquisition must carry `first_token` and every one after it a fencing token
/// exactly one higher than the one before: an instance that came up without fencing (no token)
/// or with a counter of its own fails it.
void check_tokens_after_simultaneous_start(int instances, int rounds, const std::function<void()>& reset,
                                           const std::function<std::unique_ptr<lock_provider>()>& make,
                                           std::int64_t first_token = 1);

}  // namespace shedlock::test
