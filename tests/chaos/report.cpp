#include "report.hpp"

#include <cstdio>

namespace shedlock::chaos {
namespace {

int get(const std::map<std::string, int>& counts, const std::string& key) {
    const auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
}

}  // namespace

std::string table_header() {
    char line[512];
    std::snprintf(line, sizeof line,
                  "%-8s %-11s | %6s %6s %6s %5s %5s %4s %4s %4s | %4s %4s %4s %4s %4s %4s %4s %4s %4s %4s | %4s %4s %9s %4s %4s %4s %4s %13s | %s\n",
                  "backend", "lane", "tries", "held", "wrote", "stale", "75", "69", "kill", "lost", "kcli", "kcmd", "stop",
                  "rest", "lat", "hole", "rst", "clk", "jump", "rdly", "ovl", "tok", "excl(ok)", "atl", "ext", "stat", "gaps", "max gap/bound",
                  "verdict");
    return line;
}

std::string table_row(const std::string& backend, const lane_result& r) {
    const auto& v = r.violations;
    const int tokens = get(v, "token_order") + get(v, "duplicate_token") + get(v, "token_regression");
    char excl[32], gap[32], line[512];
    std::snprintf(excl, sizeof excl, "%d(%d)", get(v, "exclusion"), r.excused);
    std::snprintf(gap, sizeof gap, "%lld/%lld", static_cast<long long>(r.max_gap_ms),
                  static_cast<long long>(r.max_gap_bound_ms));
    const auto& f = r.faults;
    std::snprintf(line, sizeof line,
                  "%-8s %-11s | %6d %6d %6d %5d %5d %4d %4d %4d | %4d %4d %4d %4d %4d %4d %4d %4d %4d %4d | %4d %4d %9s %4d %4d %4d %4d %13s | %s\n",
                  backend.c_str(), r.label.c_str(), r.attempts, r.acquired, r.committed, r.rejected, r.skipped,
                  r.unavailable, r.killed, r.lost, get(f, "kill_cli"), get(f, "kill_command"), get(f, "stop"),
                  get(f, "restart"), get(f, "latency"), get(f, "black_hole"), get(f, "reset"), get(f, "clock"), get(f, "clock_jump"),
                  get(f, "release_delay"), get(v, "accepted_overlap"), tokens, excl, get(v, "at_least"), get(v, "stale_extend"),
                  get(v, "status"), get(v, "gap"), gap, r.total_violations() ? "FAIL" : "ok");
    return line;
}

std::string violation_details(const std::string& backend, const std::vector<lane_result>& lanes) {
    std::string text;
    for (const auto& lane : lanes)
        if (!lane.max_gap_where.empty())
            text += backend + " " + lane.label + ": longest gap " + std::to_string(lane.max_gap_ms) + " ms " +
                    lane.max_gap_where + " (bound " + std::to_string(lane.max_gap_bound_ms) + " ms)\n";
    for (const auto& lane : lanes) {
        if (!lane.total_violations()) continue;
        text += backend + " " + lane.label + ":";
        for (const auto& [kind, n] : lane.violations) text += " " + kind + "=" + std::to_string(n);
        text += "\n";
        for (const auto& example : lane.examples) text += "  " + example + "\n";
    }
    return text;
}

}  // namespace shedlock::chaos
