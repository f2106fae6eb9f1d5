#include "analysis.hpp"

#include "analysis_model.hpp"

namespace shedlock::chaos {
namespace {

constexpr std::size_t max_examples = 8;

void count_attempts(const detail::lane_model& lane, lane_result& out) {
    for (const auto& a : lane.attempts) {
        const attempt_record& r = *a.record;
        ++out.attempts;
        out.acquired += a.began;
        out.committed += a.commit_ok;
        out.rejected += r.status == 3;
        out.skipped += r.status == 75;
        out.unavailable += r.status == 69;
        out.killed += r.faults.killed_cli || r.faults.killed_command;
        out.lost += r.lock_lost;
        out.skewed += r.plan.clock.active();
        if (r.plan.clock.active()) ++out.faults[r.plan.clock.jump ? "clock_jump" : "clock"];
        if (r.faults.killed_cli) ++out.faults["kill_cli"];
        if (r.faults.killed_command) ++out.faults["kill_command"];
        if (r.faults.stopped) ++out.faults["stop"];
    }
    for (const fault_event* f : lane.faults)
        if (detail::is_server_fault(*f)) ++out.faults[f->kind];
}

}  // namespace

int lane_result::total_violations() const {
    int total = 0;
    for (const auto& [kind, n] : violations) total += n;
    return total;
}

std::vector<lane_result> analyze(const analysis_input& input) {
    std::vector<lane_result> results;
    for (const auto& lane : detail::build_models(input)) {
        lane_result r;
        r.label = lane.where->label;
        count_attempts(lane, r);
        std::vector<detail::finding> findings;
        detail::check_fencing(lane, findings);
        detail::check_exclusion(lane, input, findings, r.excused);
        detail::check_extends(lane, findings);
        detail::check_statuses(lane, input, findings);
        const detail::longest_gap gap = detail::check_gaps(lane, input, findings);
        r.max_gap_ms = gap.ms;
        r.max_gap_bound_ms = gap.bound_ms;
        r.max_gap_where = gap.where;
        for (const auto& f : findings) {
            ++r.violations[f.kind];
            if (r.examples.size() < max_examples) r.examples.push_back(f.kind + ": " + f.text);
        }
        results.push_back(std::move(r));
    }
    return results;
}

}  // namespace shedlock::chaos
