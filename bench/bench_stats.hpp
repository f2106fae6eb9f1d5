#pragma once
// Shared by the benchmarks: percentiles of latency samples, medians with ranges over slices, and
// interleaved slices of cycle variants. Every benchmark reports medians and [min-max] over
// slices, never the best slice.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::bench {

struct latency_summary {
    std::size_t count = 0;
    double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

/// Sorts `samples_ns` in place and summarizes them.
latency_summary summarize(std::vector<std::int64_t>& samples_ns);

std::string format(const latency_summary& s);

/// The median of some values (one per slice) with the smallest and the largest.
struct median_range {
    double median = 0, min = 0, max = 0;
};

median_range median_of(std::vector<double> values);

/// "median [min-max]" with printf's `number` format for each (e.g. "%.3f").
std::string format(const median_range& r, const char* number = "%.3f");

/// CPU time (user + system) of the calling thread, in seconds.
double thread_cpu_seconds();

/// What one variant did in one slice: cycles, wall time, CPU time of the thread that ran it. On
/// a loaded machine the wall time also holds the time other processes ran; the CPU time does not.
struct tally {
    long cycles = 0;
    double wall = 0, cpu = 0;
    double rate() const { return static_cast<double>(cycles) / wall; }
    double cpu_us() const { return cpu * 1e6 / static_cast<double>(cycles); }
};

/// Named cycles compared against each other: one call is one lock+unlock cycle.
using variant_list = std::vector<std::pair<std::string, std::function<void()>>>;
/// One slice's tallies, one per variant; then all slices.
using slice_tallies = std::vector<tally>;

/// One slice: bursts of `burst` cycles of each variant in turn, the order reversed every other
/// turn, until each variant has run about `length`. Fine interleaving gives every variant the
/// same share of whatever else the machine does during the slice.
slice_tallies run_slice(const variant_list& variants, std::chrono::duration<double> length, long burst);

/// `slices` slices of run_slice.
std::vector<slice_tallies> run_slices(const variant_list& variants, int slices, std::chrono::duration<double> length,
                                      long burst);

/// Per variant: wall cycles/s and CPU us/cycle, medians [min-max] over the slices.
void report_rates(const variant_list& variants, const std::vector<slice_tallies>& slices);

/// Time per cycle of variant `candidate` / time per cycle of variant `floor`, computed per slice
/// (wall and CPU), medians [min-max] over the slices. Returns the wall ratio.
median_range report_ratio(const variant_list& variants, const std::vector<slice_tallies>& slices,
                          std::size_t candidate, std::size_t floor);

/// The 1-, 5- and 15-minute load averages and the core count, one line.
void print_load(const char* when);

}  // namespace shedlock::bench
