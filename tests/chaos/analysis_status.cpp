// Exit statuses must match what happened to each attempt (docs/crontab.md, "Exit statuses").
#include "analysis_model.hpp"
#include "chaos_clock.hpp"

#include <algorithm>
#include <cstdlib>

namespace shedlock::chaos::detail {
namespace {

constexpr int exit_rejected = 3;  // chaos_resource: the resource refused a stale token
// The command of a killed `shedlock run` gets SIGTERM at once (parent-death signal): it may
// still finish a write it was doing, but not start one this long after.
constexpr std::int64_t orphan_grace_us = 200'000;

bool server_trouble(const lane_model& lane, std::int64_t from, std::int64_t to, std::int64_t after_us) {
    const auto during = lane.faults_during(from, to, after_us);
    return std::any_of(during.begin(), during.end(), [&](const fault_event* f) {
        return is_server_fault(*f) || (lane.where->server < 0 && f->kind == "stop");
    });
}

/// Who may have held the lock when: the attempts that did not exit 75, by spawn, with the
/// latest hold_end among each prefix, so "did anybody hold it in [from, to]" is one search.
class possible_holders {
public:
    explicit possible_holders(const lane_model& lane) {
        for (const auto& a : lane.attempts)  // already sorted by spawn
            if (a.record->status != 75) {
                spawns_.push_back(a.spawn);
                latest_.push_back(std::max(latest_.empty() ? a.hold_end : latest_.back(), a.hold_end));
            }
    }
    bool any_during(std::int64_t from, std::int64_t to) const {
        const auto end = std::upper_bound(spawns_.begin(), spawns_.end(), to);
        return end != spawns_.begin() && latest_[static_cast<std::size_t>(end - spawns_.begin()) - 1] >= from;
    }

private:
    std::vector<std::int64_t> spawns_;
    std::vector<std::int64_t> latest_;
};

/// Why the lock could be lost under keep-alive: the holder was stopped past its lease, the
/// server or network failed, or (client-clock lanes) a skewed client took it over.
bool loss_explained(const lane_model& lane, const attempt_view& a, std::int64_t slack) {
    if (a.record->faults.stopped || server_trouble(lane, a.spawn, a.exit, slack)) return true;
    if (a.record->plan.clock.active()) return true;
    return lane.where->client_clock && std::any_of(lane.attempts.begin(), lane.attempts.end(), [&](const attempt_view& x) {
               return x.record->plan.clock.active() && x.spawn <= a.exit && x.exit >= a.spawn;
           });
}

/// Empty when the status fits; else what is wrong.
std::string status_problem(const lane_model& lane, const possible_holders& holders, const attempt_view& a,
                           std::int64_t slack) {
    const attempt_record& r = *a.record;
    if (r.hung) return "did not end by its deadline";
    if (r.faults.killed_cli && a.committed && a.commit > r.faults.kill_us + orphan_grace_us)
        return "the command wrote after its shedlock run was killed (no parent-death signal?)";
    if (r.cli_signalled) return r.faults.killed_cli && r.status == 137 ? "" : "shedlock run died of a signal nobody sent";
    if (r.unlock_failed && !server_trouble(lane, a.spawn, a.exit, slack)) return "releasing the lock failed without a fault";
    const std::int64_t skew_back = lane.where->client_clock ? ms_to_us(std::abs(r.plan.clock.offset_ms)) : 0;
    switch (r.status) {
        case 0: return a.commit_ok ? "" : "exit 0 without an accepted write";
        case exit_rejected: return a.began && !a.commit_ok ? "" : "exit 3 without a rejected write";
        case 75:
            if (a.began) return "exit 75 although the command ran";
            return holders.any_during(a.spawn - skew_back, a.exit) ? "" : "exit 75 while nobody held the lock";
        case 69:
            if (a.began) return "exit 69 although the command ran";
            return server_trouble(lane, a.spawn, a.exit, slack) ? "" : "exit 69 without a server or network fault";
        case 137: return r.faults.killed_command ? "" : "command killed by SIGKILL nobody sent";
        case 143:
            if (!r.lock_lost) return "command stopped by SIGTERM without a lost lock";
            return r.plan.keep_alive && loss_explained(lane, a, slack) ? "" : "lock lost without a fault that explains it";
        default: return "unexpected exit status";
    }
}

}  // namespace

void check_statuses(const lane_model& lane, const analysis_input& input, std::vector<finding>& out) {
    const std::int64_t slack = ms_to_us(input.options.slack_ms);
    const possible_holders holders(lane);
    for (const auto& a : lane.attempts)
        if (const std::string problem = status_problem(lane, holders, a, slack); !problem.empty())
            out.push_back({"status", problem + ": " + describe(a, lane.origin)});
}

}  // namespace shedlock::chaos::detail
