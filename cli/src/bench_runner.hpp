#pragma once
// Measurements behind `shedlock bench`: real lock cycles against a real backend.

#include "provider_factory.hpp"

#include <chrono>
#include <functional>
#include <string>

namespace shedlock::cli {

struct latency {
    double p50_us = 0, p99_us = 0, max_us = 0;
};

struct provider_figures {
    std::string provider;          ///< redacted URI
    double single_cycles_per_s = 0;
    latency single_latency;        ///< of one try_lock, one thread
    latency cycle_latency;         ///< of one full cycle (try_lock + unlock), one thread
    double contended_acquisitions_per_s = 0;
    double contended_attempts_per_s = 0;
    double fairness = 0;           ///< Jain's index over contenders' acquisitions: 1 = perfectly fair
    latency contended_latency;     ///< of one try_lock attempt under contention
    double distinct_cycles_per_s = 0;
    int contenders = 0;
};

struct bench_plan {
    std::chrono::milliseconds phase{2000};
    int contenders = 4;
    std::function<void(const std::string&)> progress;  ///< called at each phase
};

/// Runs the three phases (single, contended on one name, distinct names) against `uri`, then
/// deletes every record it created (names under a temporary prefix).
provider_figures bench_provider(const std::string& uri, const bench_plan& plan);

}  // namespace shedlock::cli
