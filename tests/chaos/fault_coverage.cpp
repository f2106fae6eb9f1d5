#include "fault_coverage.hpp"

#include <algorithm>

namespace shedlock::chaos {

std::set<std::string> applicable_fault_kinds(const std::set<std::string>& faults, const std::vector<lane>& lanes) {
    const bool has_server = std::any_of(lanes.begin(), lanes.end(), [](const lane& l) { return l.server >= 0; });
    std::set<std::string> kinds;
    for (const auto& kind : faults) {
        const bool needs_server = kind == "restart" || kind == "latency" || kind == "black_hole" || kind == "reset" ||
                                  kind == "release_delay";
        if (!needs_server || has_server) kinds.insert(kind);
    }
    return kinds;
}

std::vector<std::string> unfired_fault_kinds(const std::set<std::string>& applicable,
                                             const std::vector<fault_event>& faults,
                                             const std::vector<attempt_record>& attempts) {
    std::set<std::string> fired;
    for (const auto& f : faults) fired.insert(f.kind);
    for (const auto& a : attempts)
        if (a.plan.clock.active()) fired.insert(a.plan.clock.jump ? "clock_jump" : "clock");
    std::vector<std::string> unfired;
    for (const auto& kind : applicable)
        if (!fired.count(kind)) unfired.push_back(kind);
    return unfired;
}

}  // namespace shedlock::chaos
