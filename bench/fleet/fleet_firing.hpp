#pragma once
// The fleet of one backend and side (N instance processes, started once and warmed up) and its
// firings: one shared due instant, every instance decides every task, the server's figures read
// around it.

#include "fleet_probes.hpp"
#include "fleet_worker.hpp"

#include "../bench_stats.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace shedlock::bench::fleet {

struct firing_result {
    latency_summary latency;     ///< from the due instant to each decision
    long decisions = 0, acquisitions = 0, errors = 0;
    long duplicates = 0;         ///< tasks taken by more than one instance (must stay 0)
    long unacquired = 0;         ///< tasks nobody took
    double server_cpu_ns = 0;    ///< of the server processes that served the fleet
    double pooler_cpu_ns = 0;
    int late_connections = 0;    ///< server connections opened during the firing (their setup is in the CPU)
    live_figures live;           ///< at the end of the firing, connections still open
    counter_figures before, after;
    std::string first_error;
    wall_time due;
};

/// N instance processes of one plan. Stops them (quit, then waits) when destroyed.
class instance_fleet {
public:
    /// Starts `instances` processes and waits until each has warmed up its connections. Throws
    /// when one could not start.
    instance_fleet(const worker_plan& plan, int instances);
    ~instance_fleet();
    instance_fleet(const instance_fleet&) = delete;
    instance_fleet& operator=(const instance_fleet&) = delete;

    /// One firing on the names "<name_set>-<task>", due no earlier than `not_before` (and on a
    /// whole second). Throws when an instance broke the protocol.
    firing_result fire(const std::string& name_set, server_probe& probe, wall_time not_before);

private:
    struct process {
        int pid = -1;
        FILE* to = nullptr;    ///< its stdin
        FILE* from = nullptr;  ///< its stdout
    };
    std::vector<process> processes_;
    std::vector<int> pids_;
    int tasks_ = 0;
};

}  // namespace shedlock::bench::fleet
