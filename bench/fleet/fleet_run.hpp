#pragma once
// The coordinator: per backend, the held names and warm-up, then interleaved rounds of firings
// (provider and raw alternating, both kinds), then the report.

#include "fleet_firing.hpp"
#include "fleet_options.hpp"

#include <string>
#include <vector>

namespace shedlock::bench::fleet {

/// What a firing's instances meet: every task free (one acquisition and N-1 refusals each), or
/// every task held by the coordinator (N refusals each: the refusal's own price).
enum class firing_kind { contended, refused };

/// The firings of one backend: [kind][side (0 provider, 1 raw)][round].
struct backend_firings {
    std::string backend, server_version;
    std::vector<firing_result> of[2][2];
    double redis_bytes_per_held_lock = 0;  ///< used_memory growth per held lock (Redis)
};

/// Runs every round on `backend`; an empty `backend` field when its URI variable is unset.
backend_firings run_backend(const fleet_options& options, const std::string& backend);

/// Prints one backend's figures: medians [min-max] over rounds, provider/raw ratios per round.
void report_backend(const fleet_options& options, const backend_firings& firings);

}  // namespace shedlock::bench::fleet
