#pragma once
// One instance of the fleet: a child process of the bench (the program run again with --worker),
// alive for all the firings of one backend, as a scheduler's process is (the provider keeps what
// it learnt, e.g. which lock records exist). It connects, warms up every connection, says
// "ready"; then per firing it waits for the shared due instant, decides every task once on its
// worker threads and reports each decision's latency from the due instant.
//
// Protocol on stdin/stdout, one line each:
//   -> ready
//   <- fire <name set> <due: ns since the epoch, system_clock>
//   -> d <task> <0|1 acquired> <ns from due to decision>   (one per task)
//   -> e <task> <error text>       (a decision that failed)
//   -> done                        (then the next "fire", or "quit": the worker exits)

#include <chrono>
#include <string>
#include <vector>

namespace shedlock::bench::fleet {

/// The due instants of firings: wall-clock, shared by all instances on the host.
using wall_time = std::chrono::system_clock::time_point;

/// What the coordinator passes on a worker's command line (the URI comes from the environment).
struct worker_plan {
    std::string backend;  ///< postgres | pgbouncer | redis
    std::string side;     ///< provider | raw
    int tasks = 0;  ///< lock names are "<name set>-<task>"
    int threads = 0, hold_ms = 0, body_ms = 0;
    std::string redis_prefix;

    std::vector<std::string> to_args() const;
    static worker_plan from_args(int argc, char** argv);  ///< argv[1] is "--worker"
};

/// The name every worker thread warms up on: held by the coordinator, so a warm-up is a refusal.
inline constexpr const char* warm_up_name = "fleet-warm";

/// The environment variable holding `backend`'s URI.
const char* backend_uri_variable(const std::string& backend);

/// Runs one instance; returns the process exit code.
int run_worker(const worker_plan& plan);

}  // namespace shedlock::bench::fleet
