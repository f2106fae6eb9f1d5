#pragma once
// A worker: a loop of `shedlock run` attempts (crontab firings that never stop), each around
// chaos_resource, with random lock policies and, sometimes, a skewed client clock.

#include "attempt.hpp"
#include "attempt_registry.hpp"
#include "backend.hpp"
#include "options.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace shedlock::chaos {

/// What every worker of a run shares.
struct worker_shared {
    worker_shared(const run_options& o, const std::vector<lane>& l, std::string faketime, attempt_registry& r)
        : options(o), lanes(l), libfaketime(std::move(faketime)), registry(r) {}

    const run_options& options;
    const std::vector<lane>& lanes;
    std::string libfaketime;              ///< empty: no clock faults
    attempt_registry& registry;
    std::atomic<std::int64_t> next_attempt{1};
    std::atomic<bool> stop{false};
    std::mutex records_mutex;
    std::vector<attempt_record> records;  ///< finished attempts
    std::string error;                    ///< why a worker gave up (the run then proves nothing)
};

/// Runs attempts until shared.stop (the attempt in progress is finished first).
void run_worker(worker_shared& shared, int index, std::uint64_t seed);

/// The libfaketime library to preload for clock faults; empty when none is installed.
std::string find_libfaketime();

}  // namespace shedlock::chaos
