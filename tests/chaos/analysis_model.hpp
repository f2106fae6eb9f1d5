#pragma once
// The analysis's view of one lane: each attempt joined with its journal events, and the
// derived times the checks use. Internal to the analysis_*.cpp files.

#include "analysis.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace shedlock::chaos::detail {

/// Times are chaos_clock microseconds.
struct attempt_view {
    const attempt_record* record = nullptr;
    std::int64_t spawn = 0;
    std::int64_t exit = 0;
    bool began = false;          ///< a begin event: the lock was granted before `begin`
    std::int64_t begin = 0;
    std::int64_t token = -1;
    bool committed = false;
    bool commit_ok = false;
    std::int64_t commit = 0;
    std::int64_t last = 0;       ///< the last journal event: the lock was surely not released before
    bool clean_release = true;   ///< it exited normally, so it released the lock (or tried)
    std::int64_t hold_end = 0;   ///< the latest time the lock may still be held because of it
    std::int64_t lease_end = 0;  ///< when its lease ran out unless released or extended
    std::vector<std::int64_t> extend_ok_starts;  ///< starts of extensions that reported success
};

struct lane_model {
    const lane* where = nullptr;
    int index = 0;
    std::vector<attempt_view> attempts;   ///< every attempt on the lane, by spawn time
    std::vector<const fault_event*> faults;  ///< faults of the lane's server, and on its attempts, by start
    std::int64_t longest_fault_us = 0;
    std::int64_t origin = 0;              ///< run start, for readable times in findings

    /// The faults in force at some time in [from, to] (or whose effect lasted `after_us` longer).
    /// Sorted by start, so a soak run's hours of faults cost a binary search per question.
    std::vector<const fault_event*> faults_during(std::int64_t from, std::int64_t to, std::int64_t after_us = 0) const;
};

/// Joins attempts and journal per lane.
std::vector<lane_model> build_models(const analysis_input& input);

struct finding {
    std::string kind;
    std::string text;
};

/// The checks; each appends its violations (and counts excused cases in `excused`).
void check_fencing(const lane_model& lane, std::vector<finding>& out);
void check_exclusion(const lane_model& lane, const analysis_input& input, std::vector<finding>& out, int& excused);
void check_extends(const lane_model& lane, std::vector<finding>& out);
void check_statuses(const lane_model& lane, const analysis_input& input, std::vector<finding>& out);
struct longest_gap {
    std::int64_t ms = 0;
    std::int64_t bound_ms = 0;
    std::string where;
};
longest_gap check_gaps(const lane_model& lane, const analysis_input& input, std::vector<finding>& out);

/// True when `f` was in force (or its effects lasted: `after_us`) during [from, to].
bool overlaps(const fault_event& f, std::int64_t from, std::int64_t to, std::int64_t after_us = 0);
/// Server-side faults: restart and the network kinds.
bool is_server_fault(const fault_event& f);
/// "attempt 12 (worker 3, spawned 4.210 s, began 4.260 s, token 17, exit 0)", times from the run start.
std::string describe(const attempt_view& a, std::int64_t origin);
/// Seconds since the run start, "4.210 s".
std::string at(std::int64_t t_us, std::int64_t origin);

}  // namespace shedlock::chaos::detail
