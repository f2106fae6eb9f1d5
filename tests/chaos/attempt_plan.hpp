#pragma once
// Drawing one attempt's lock policy and command, and turning it into a process to start.

#include "attempt.hpp"
#include "backend.hpp"
#include "options.hpp"
#include "process.hpp"

#include <random>
#include <string>
#include <vector>

namespace shedlock::chaos {

/// A random plan: lane, keep-alive, lock_at_least_for, hold time (sometimes longer than the
/// lease: the "overrun" that only fencing can catch), and, if `can_skew` (libfaketime is there)
/// and the clock or clock_jump faults are on, sometimes a skewed client clock.
attempt_plan draw_plan(std::mt19937_64& rng, const run_options& options, const std::vector<lane>& lanes,
                       bool can_skew, int worker, std::int64_t id);

/// The `shedlock run` (or planted worker) command line and environment for `plan`.
spawn_request build_request(const attempt_plan& plan, const lane& where, const run_options& options,
                            const std::string& libfaketime);

/// The file a release_delay attempt's command creates when it is done (the injector then holds
/// the network and removes it); its name is release_delay_prefix + the attempt id.
inline constexpr const char* release_delay_prefix = "release-delay-";
std::string release_delay_request(const run_options& options, std::int64_t attempt);

/// The libfaketime clock file of an attempt (in the work dir), and what it holds at start.
std::string clock_file(const run_options& options, std::int64_t attempt);
std::string initial_clock_text(const attempt_plan& plan);

}  // namespace shedlock::chaos
