#pragma once
// The one time base of a chaos run. CLOCK_MONOTONIC is system-wide, so entries written by
// different processes compare directly, and libfaketime leaves it alone when started with
// FAKETIME_DONT_FAKE_MONOTONIC=1, so a process with a skewed wall clock still logs real times.

#include <cstdint>

namespace shedlock::chaos {

/// Milliseconds as this clock's microseconds.
constexpr std::int64_t ms_to_us(std::int64_t ms) { return ms * 1000; }

/// Microseconds on CLOCK_MONOTONIC (the same clock as std::chrono::steady_clock on Linux).
std::int64_t now_us();

/// Sleeps `us` microseconds (no-op for <= 0); restarts after signals until the time is over.
void sleep_us(std::int64_t us);

}  // namespace shedlock::chaos
