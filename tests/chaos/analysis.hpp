#pragma once
// The analysis of a chaos run: from the journal (what the protected resource saw), the attempts
// (how each `shedlock run` ended and what was done to it) and the faults, per lane (lock name):
// counts, and violations of what the lock and its fencing tokens promise. docs/chaos.md
// explains each check and its bound.

#include "attempt.hpp"
#include "backend.hpp"
#include "fault_injector.hpp"
#include "journal.hpp"
#include "options.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shedlock::chaos {

struct analysis_input {
    const run_options& options;
    const std::vector<lane>& lanes;
    const std::vector<attempt_record>& attempts;
    const std::vector<journal_event>& journal;
    const std::vector<fault_event>& faults;
    std::int64_t start_us = 0;  ///< when the workers started
    std::int64_t end_us = 0;    ///< when they were told to stop
};

struct lane_result {
    std::string label;
    int attempts = 0;
    int acquired = 0;     ///< the command began (the lock was granted)
    int committed = 0;    ///< the resource accepted the write
    int rejected = 0;     ///< the resource refused a stale token (exit 3)
    int skipped = 0;      ///< exit 75
    int unavailable = 0;  ///< exit 69
    int killed = 0;       ///< `shedlock run` or its command killed by the injector
    int lost = 0;         ///< the lock was lost under keep-alive and the command stopped
    int skewed = 0;       ///< attempts with a skewed client clock
    std::map<std::string, int> faults;      ///< injected faults that touched this lane, by kind
    std::map<std::string, int> violations;  ///< by kind (all_violation_kinds)
    int excused = 0;      ///< exclusion breaks the lane's documented limits allow (see docs)
    std::int64_t max_gap_ms = 0;
    std::int64_t max_gap_bound_ms = 0;      ///< the bound that applied to max_gap_ms
    std::string max_gap_where;              ///< "from 12.300 s to 14.100 s"
    std::vector<std::string> examples;      ///< the first violations, described
    int total_violations() const;
};

std::vector<lane_result> analyze(const analysis_input& input);

}  // namespace shedlock::chaos
