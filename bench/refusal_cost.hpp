#pragma once
// Server cost of one PostgreSQL lock attempt (issue 24, "the refused attempt is the fleet's
// cost"): CPU of the serving backend and WAL per refused attempt and per takeover of an expired
// record, for Java ShedLock's plain UPDATE, our acquire as it was before the refusal rework, our
// full statement and plain UPDATE now, and the provider itself. The refusal_cost program prints
// it; bench/fleet may call measure_refusal_cost for its own report.
#include "bench_stats.hpp"

#include <string>
#include <utility>
#include <vector>

namespace shedlock::bench {

struct refusal_cost_options {
    std::string uri;         ///< postgresql://... of a server on THIS machine (its backends' /proc is read)
    int slices = 7;          ///< interleaved slices; each runs every variant once
    long refusals = 20000;   ///< refused attempts per variant and slice
    long takeovers = 1000;   ///< takeovers of an expired record per variant and slice (each commits)
    long burst = 1000;       ///< refusals per turn within a slice (takeovers: a tenth of it)
    /// Pause after every attempt, in microseconds. 0: back to back, where the backend mostly finds
    /// the next request already there and never sleeps, so a slower client (the provider) pays
    /// for its backend's sleeps and wake-ups alone. A pause longer than an attempt makes every
    /// attempt arrive on an idle connection, as each instance's refusal does in a fleet: every
    /// variant then pays for one wake-up per attempt.
    int pace_us = 0;
};

/// One variant's figures over the slices.
struct attempt_cost {
    std::string variant;
    median_range cpu_us;     ///< backend CPU (utime + stime, /proc/<pid>/stat) per attempt, in us
    median_range wal_bytes;  ///< WAL per attempt (pg_current_wal_lsn, whole server: others' writes count too)
    median_range cpu_ratio;  ///< backend CPU / the first variant's (Java's), per slice
};

struct refusal_cost_report {
    std::vector<attempt_cost> refusals, takeovers;
};

/// Measures on a table of its own (created, dropped after). Throws on a server it cannot use.
refusal_cost_report measure_refusal_cost(const refusal_cost_options& options);

/// The report as two tables (refused attempts, takeovers).
void print(const refusal_cost_report& report);

/// CPU time that process `pid` has used, in seconds: from /proc/<pid>/schedstat (nanoseconds), or
/// where the kernel has none from /proc/<pid>/stat (user + system, clock ticks: measure many
/// attempts). Throws when the process is not visible.
double process_cpu_seconds(int pid);

}  // namespace shedlock::bench
