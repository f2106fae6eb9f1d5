#include "run_log.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace shedlock::chaos {
namespace {

std::string seconds(std::int64_t t_us, std::int64_t start_us) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", (t_us - start_us) / 1e6);
    return text;
}

std::string attempt_line(const lane& where, const attempt_record& r, std::int64_t start) {
    std::string line = std::to_string(r.plan.id) + " worker=" + std::to_string(r.plan.worker) + " lane=" + where.label +
                       " spawn=" + seconds(r.spawn_us, start) + " exit=" + seconds(r.exit_us, start) +
                       " status=" + std::to_string(r.status) + " hold=" + std::to_string(r.plan.hold_ms) +
                       " at_least=" + std::to_string(r.plan.at_least_ms) + (r.plan.keep_alive ? " keep_alive" : "");
    if (r.plan.clock.active())
        line += std::string(r.plan.clock.jump ? " clock_jump=" : " clock_offset=") + std::to_string(r.plan.clock.offset_ms);
    if (r.faults.killed_cli) line += " killed_cli";
    if (r.faults.killed_command) line += " killed_command";
    if (r.faults.stopped) line += " stopped=" + seconds(r.faults.stop_us, start) + ".." + seconds(r.faults.cont_us, start);
    if (r.cli_signalled) line += " signalled";
    if (r.hung) line += " hung";
    if (r.unlock_failed) line += " unlock_failed";
    if (r.lock_lost) line += " lock_lost";
    if (!r.message.empty()) line += " message=" + r.message;
    return line + "\n";
}

}  // namespace

void write_run_log(const std::string& work_dir, const std::vector<lane>& lanes, const std::vector<attempt_record>& attempts,
                   const std::vector<fault_event>& faults, std::int64_t start_us) {
    std::vector<const attempt_record*> sorted;
    for (const auto& r : attempts) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->spawn_us < b->spawn_us; });
    std::ofstream out(work_dir + "/attempts.log", std::ios::trunc);
    for (const auto* r : sorted) out << attempt_line(lanes.at(r->plan.lane), *r, start_us);
    std::ofstream fout(work_dir + "/faults.log", std::ios::trunc);
    for (const auto& f : faults)
        fout << f.kind << " start=" << seconds(f.start_us, start_us) << " end=" << seconds(f.end_us, start_us)
             << (f.server >= 0 ? " server=" + std::to_string(f.server) : "")
             << (f.attempt >= 0 ? " attempt=" + std::to_string(f.attempt) : "") << "\n";
    std::ofstream lout(work_dir + "/lanes.log", std::ios::trunc);
    for (const auto& l : lanes) lout << l.label << " " << l.lock_name << "\n";  // URIs may hold passwords
}

}  // namespace shedlock::chaos
