#pragma once
// Shared by the parts of bench/async_cycles (issue 23): a "side" runs lock cycles on the calling
// thread until a deadline and says how many it finished; the harness times sides in interleaved
// slices and reports medians with ranges and the per-slice ratios.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lock_provider.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace shedlock::bench {

using bench_clock = std::chrono::steady_clock;

/// Runs acquire+unlock cycles on the calling thread until `deadline` (the cycles in flight then
/// finish first); returns how many finished. Throws when a cycle fails or a lock is found held.
using cycle_runner = std::function<long(bench_clock::time_point deadline)>;

struct side {
    std::string name;
    cycle_runner run;
};

struct harness_settings {
    /// Many short slices rather than a few long ones: on a busy machine the load changes within
    /// seconds, and adjacent half-second windows share more of it.
    int slices = 20;
    double seconds = 0.5;  ///< per side and slice
    double warm_up = 0.5;  ///< per side, before the first slice (connects, prepares, script loads)
    int only = -1;         ///< >= 0: run that side alone (for perf/strace), no ratios
};

/// `count` lock names `<prefix>-<i>`, distinct per process (the pid is part of the prefix).
std::vector<std::string> bench_names(const std::string& prefix, int count);

/// An owner token of the length make_owner_token() gives, made from a counter: the raw floors
/// write as many bytes as the provider without its random draw.
std::string counter_owner(long counter);

/// Our side: `names.size()` coroutines on `io`, each looping async_try_lock -> async_unlock on its
/// own name through the public token API (use_awaitable). `io` must be run by no other thread.
cycle_runner async_side(shedlock::asio::lock_service& service, boost::asio::io_context& io,
                        std::vector<std::string> names, std::chrono::milliseconds at_most);

/// The blocking provider: try_lock + unlock, one after the other, on one name.
cycle_runner blocking_side(lock_provider& provider, std::string name, std::chrono::milliseconds at_most);

/// Runs `io` on the calling thread until `*active` is 0 (other work, such as idle connections'
/// read waits, may stay pending: run() would not return).
void run_until_idle(boost::asio::io_context& io, const int* active);

/// Warm-up, then the slices (the order of the sides reversed every other slice); prints cycles/s
/// and CPU us/cycle per side, then for each pair (a, b) of `ratios` the per-slice ratios
/// cycles/s of a / cycles/s of b and CPU us/cycle of b / CPU us/cycle of a (how much faster and
/// how much cheaper a is), medians [min-max] over the slices.
void measure(const std::string& title, const std::vector<side>& sides,
             const std::vector<std::pair<std::size_t, std::size_t>>& ratios, const harness_settings& settings);

}  // namespace shedlock::bench
