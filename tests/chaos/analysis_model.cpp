#include "analysis_model.hpp"
#include "chaos_clock.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace shedlock::chaos::detail {
namespace {

/// When the lock may last be held because of attempt `a` (see docs/chaos.md, "Gaps").
void derive_hold_end(attempt_view& a, const lane& where, std::int64_t at_most_us) {
    const attempt_record& r = *a.record;
    a.clean_release = !(r.faults.killed_cli || r.hung || r.cli_signalled || r.unlock_failed || r.status == 69);
    // Without keep-alive the lease was granted before `begin` and never extended.
    const std::int64_t lease_bound = a.began && !r.plan.keep_alive ? a.begin + at_most_us : a.exit + at_most_us;
    // lock_at_least_for runs from the grant: before `begin`, or (no begin: the command died
    // first) before the exit. Where the server decides by its own clock (Redis, db_time), the
    // release hands it the REMAINING hold, which it adds to its now when the request arrives: a
    // request delayed in transit keeps the lock that much longer (still "at least"). The request
    // left after the command's last event and arrived before the exit, so the delay is below
    // exit - last.
    const std::int64_t at_least = ms_to_us(r.plan.at_least_ms);
    const std::int64_t transit = where.client_clock ? 0 : std::max<std::int64_t>(0, a.exit - a.last);
    const std::int64_t release_bound = a.began ? std::max(a.exit, a.begin + at_least + transit) : a.exit + at_least;
    a.lease_end = lease_bound;
    a.hold_end = a.clean_release ? std::min(release_bound, lease_bound) : lease_bound;
    // A client clock ahead by D writes every lock time D late, the release too: an owner whose
    // lease ran out unnoticed (nobody took over) still sets lock_until = release + D.
    if (where.client_clock && r.plan.clock.offset_ms > 0)
        a.hold_end = (a.clean_release ? release_bound : lease_bound) + ms_to_us(r.plan.clock.offset_ms);
}

/// A release followed, within its lease, by a failover may have been undone by it (the promoted
/// replica never had it): the lock may then be held until the lease ends.
void extend_undone_releases(lane_model& m) {
    for (auto& a : m.attempts) {
        if (a.hold_end >= a.lease_end) continue;
        const auto during = m.faults_during(a.hold_end, a.lease_end);
        if (std::any_of(during.begin(), during.end(), [](const fault_event* f) { return f->kind == "restart"; }))
            a.hold_end = a.lease_end;
    }
}

void apply_event(attempt_view& a, const journal_event& e, std::int64_t& extend_start) {
    a.last = std::max(a.last, e.t_us);
    if (e.kind == "begin") {
        a.began = true;
        a.begin = e.t_us;
        a.token = e.token;
    } else if (e.kind == "commit") {
        a.committed = true;
        a.commit_ok = e.accepted;
        a.commit = e.t_us;
    } else if (e.kind == "extend_start") {
        extend_start = e.t_us;
    } else if (e.kind == "extend_ok") {
        a.extend_ok_starts.push_back(extend_start);
    }
}

const std::string& lock_name(const analysis_input& input, const attempt_view& a) {
    return input.lanes.at(a.record->plan.lane).lock_name;
}

}  // namespace

std::vector<lane_model> build_models(const analysis_input& input) {
    std::vector<lane_model> models(input.lanes.size());
    for (std::size_t i = 0; i < models.size(); ++i) {
        models[i].where = &input.lanes[i];
        models[i].index = static_cast<int>(i);
        models[i].origin = input.start_us;
    }
    for (const auto& r : input.attempts) {
        attempt_view v;
        v.record = &r;
        v.spawn = r.spawn_us;
        v.exit = r.exit_us;
        models.at(r.plan.lane).attempts.push_back(v);
    }
    std::unordered_map<std::int64_t, attempt_view*> by_id;
    for (auto& m : models) {
        std::sort(m.attempts.begin(), m.attempts.end(), [](const auto& x, const auto& y) { return x.spawn < y.spawn; });
        for (auto& a : m.attempts) by_id[a.record->plan.id] = &a;
    }
    std::unordered_map<std::int64_t, std::int64_t> extend_starts;
    for (const auto& e : input.journal)
        if (auto it = by_id.find(e.attempt); it != by_id.end() && e.name == lock_name(input, *it->second))
            apply_event(*it->second, e, extend_starts[e.attempt]);
    for (auto& m : models)
        for (auto& a : m.attempts) derive_hold_end(a, *m.where, ms_to_us(input.options.at_most.count()));
    for (const auto& f : input.faults) {
        if (f.attempt >= 0 && f.kind == "stop" && input.lanes.front().server < 0) {
            // SQLite: every lane is in one file, and a stopped process may hold its write lock.
            for (auto& m : models) m.faults.push_back(&f);
        } else if (f.attempt >= 0) {
            if (auto it = by_id.find(f.attempt); it != by_id.end()) models[it->second->record->plan.lane].faults.push_back(&f);
        } else {
            for (auto& m : models)
                if (f.server >= 0 && (f.server == m.where->server || m.where->every_server)) m.faults.push_back(&f);
        }
    }
    for (auto& m : models) {
        std::sort(m.faults.begin(), m.faults.end(), [](auto* a, auto* b) { return a->start_us < b->start_us; });
        for (const fault_event* f : m.faults) m.longest_fault_us = std::max(m.longest_fault_us, f->end_us - f->start_us);
        if (m.where->failover_undoes_release) extend_undone_releases(m);
    }
    return models;
}

std::vector<const fault_event*> lane_model::faults_during(std::int64_t from, std::int64_t to, std::int64_t after_us) const {
    const std::int64_t earliest = from - after_us - longest_fault_us;
    auto it = std::lower_bound(faults.begin(), faults.end(), earliest,
                               [](const fault_event* f, std::int64_t t) { return f->start_us < t; });
    std::vector<const fault_event*> out;
    for (; it != faults.end() && (*it)->start_us <= to; ++it)
        if (overlaps(**it, from, to, after_us)) out.push_back(*it);
    return out;
}

bool overlaps(const fault_event& f, std::int64_t from, std::int64_t to, std::int64_t after_us) {
    return f.start_us <= to && f.end_us + after_us >= from;
}

bool is_server_fault(const fault_event& f) {
    return f.kind == "restart" || f.kind == "latency" || f.kind == "black_hole" || f.kind == "reset" ||
           f.kind == "release_delay";
}

std::string at(std::int64_t t_us, std::int64_t origin) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", (t_us - origin) / 1e6);
    return text;
}

std::string describe(const attempt_view& a, std::int64_t origin) {
    const attempt_record& r = *a.record;
    std::string text = "attempt " + std::to_string(r.plan.id) + " (worker " + std::to_string(r.plan.worker) +
                       ", spawned " + at(a.spawn, origin);
    if (a.began) text += ", began " + at(a.begin, origin) + ", token " + std::to_string(a.token);
    text += ", exit " + std::to_string(r.status) + " at " + at(a.exit, origin);
    if (r.plan.keep_alive) text += ", keep-alive";
    if (r.plan.at_least_ms) text += ", at-least " + std::to_string(r.plan.at_least_ms) + "ms";
    if (r.plan.clock.active())
        text += std::string(", clock ") + (r.plan.clock.jump ? "jump " : "offset ") + std::to_string(r.plan.clock.offset_ms) + "ms";
    if (r.faults.killed_cli) text += ", cli killed";
    if (r.faults.killed_command) text += ", command killed";
    if (r.faults.stopped) text += ", stopped " + at(r.faults.stop_us, origin) + ".." + at(r.faults.cont_us, origin);
    if (!r.message.empty()) text += ", said: " + r.message;
    return text + ")";
}

}  // namespace shedlock::chaos::detail
