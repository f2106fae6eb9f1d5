// Liveness: the lock is never without a holder for longer than the recovery slack plus the
// outages that explain it (see docs/chaos.md, "Gaps").
#include "analysis_model.hpp"
#include "chaos_clock.hpp"

#include <algorithm>

namespace shedlock::chaos::detail {
namespace {

struct span {
    std::int64_t from;
    std::int64_t to;
};

/// Times the lock was, or may have been, held: from each begin (or, for an attempt that may
/// have taken the lock without its command beginning, its spawn: any status but 75, since even
/// a 69 may have been granted by a server whose answer was lost) to its hold_end.
std::vector<span> coverage(const lane_model& lane) {
    std::vector<span> spans;
    for (const auto& a : lane.attempts) {
        // Stopped before its command logged `begin`, it may have held the lock since its spawn.
        const bool begin_late = a.record->faults.stopped && a.record->faults.stop_us < a.begin;
        if (a.began && !begin_late) spans.push_back({a.begin, a.hold_end});
        else if (a.record->status != 75) spans.push_back({a.spawn, a.hold_end});
    }
    std::sort(spans.begin(), spans.end(), [](const span& x, const span& y) { return x.from < y.from; });
    return spans;
}

/// Outages that explain a gap: server and network faults of the lane's server, and (SQLite) a
/// stopped process, which may hold the database file's write lock while stopped.
std::int64_t outage_us(const lane_model& lane, std::int64_t from, std::int64_t to, std::int64_t at_most) {
    std::int64_t total = 0;
    for (const fault_event* f : lane.faults_during(from - at_most, to)) {
        const bool counts = is_server_fault(*f) || (lane.where->server < 0 && f->kind == "stop");
        if (counts) total += f->end_us - f->start_us;
    }
    return total;
}

}  // namespace

longest_gap check_gaps(const lane_model& lane, const analysis_input& input, std::vector<finding>& out) {
    const std::int64_t at_most = ms_to_us(input.options.at_most.count());
    const std::int64_t slack = ms_to_us(input.options.slack_ms);
    std::int64_t covered_until = input.start_us;
    longest_gap worst{0, slack / 1000, ""};
    auto gap_until = [&](std::int64_t next) {
        if (next <= covered_until) return;
        const std::int64_t gap = next - covered_until;
        const std::int64_t bound = slack + outage_us(lane, covered_until, next, at_most);
        if (gap / 1000 > worst.ms)
            worst = {gap / 1000, bound / 1000, "from " + at(covered_until, lane.origin) + " to " + at(next, lane.origin)};
        if (gap > bound)
            out.push_back({"gap", "no holder from " + at(covered_until, lane.origin) + " to " + at(next, lane.origin) +
                                      " (" + std::to_string(gap / 1000) + " ms, bound " + std::to_string(bound / 1000) +
                                      " ms)"});
    };
    for (const span& s : coverage(lane)) {
        gap_until(s.from);
        covered_until = std::max(covered_until, s.to);
    }
    gap_until(input.end_us);  // a lock stuck until the end is a gap too
    return worst;
}

}  // namespace shedlock::chaos::detail
