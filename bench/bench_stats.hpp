#pragma once
// Percentiles and a one-line summary for latency samples.

#include <cstdint>
#include <string>
#include <vector>

namespace shedlock::bench {

struct latency_summary {
    std::size_t count = 0;
    double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
};

/// Sorts `samples_ns` in place and summarizes them.
latency_summary summarize(std::vector<std::int64_t>& samples_ns);

std::string format(const latency_summary& s);

}  // namespace shedlock::bench
