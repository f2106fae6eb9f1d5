#pragma once
// The chaos suite's command line.

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

namespace shedlock::chaos {

/// Fault kinds: kill_cli kill_command stop restart latency black_hole reset clock clock_jump
/// release_delay.
const std::set<std::string>& all_fault_kinds();

/// Violation kinds the analysis reports (see docs/chaos.md, "Checks").
const std::set<std::string>& all_violation_kinds();

struct run_options {
    std::string backend;                       ///< sqlite | postgres | mysql | redis
    int seconds = 60;                          ///< how long the workers run
    int workers = 6;
    std::chrono::milliseconds at_most{2000};   ///< --at-most of every attempt
    std::int64_t slack_ms = 3000;              ///< recovery slack of the gap bound
    std::uint64_t seed = 0;                    ///< 0: from the clock (printed, to replay)
    std::set<std::string> faults = all_fault_kinds();
    double clock_rate = 0.05;                  ///< share of attempts with a skewed client clock
    double keep_alive_rate = 0.25;             ///< share of attempts with --keep-alive
    std::string planted;                       ///< a planted bug: workers run chaos_planted_worker
    bool async_api = false;                    ///< the async lane: workers run chaos_async_worker
    std::set<std::string> expect;              ///< planted-bug test: these violations must show
    std::string work_dir;                      ///< journal, databases, logs (kept for inspection)
    std::string table_out;                     ///< append the table rows here as well
    std::string cli_path;
    std::string resource_path;
    std::string planted_path;
    std::string async_path;
};

/// The backend column of the table: "redis", or "redis/async" for the async lane.
std::string backend_label(const run_options& o);

/// Parses argv; prints usage and exits 2 on a bad command line (0 for --help).
run_options parse_options(int argc, char** argv);

}  // namespace shedlock::chaos
