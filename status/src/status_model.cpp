#include "heartbeat_watch.hpp"
#include "instance_heartbeat.hpp"
#include "status_model.hpp"
#include "status_source.hpp"
#include "status_text.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/owner_token.hpp>

namespace shedlock::detail {
namespace {

std::string optional_time(const std::optional<timestamp>& t) { return t ? json_string(iso_utc(*t)) : "null"; }

void append_lock(std::string& out, const lock_view& l) {
    const auto& r = l.record;
    out += "{\"name\":" + json_string(r.name) + ",\"locked_by\":" + json_string(r.locked_by) +
           ",\"locked_at\":" + json_string(iso_utc(r.locked_at)) + ",\"lock_until\":" +
           (r.lock_until == timestamp::max() ? std::string("null") : json_string(iso_utc(r.lock_until))) +
           ",\"held\":" + (l.held ? "true" : "false") + ",\"remaining_ms\":" + std::to_string(l.remaining.count()) +
           ",\"fencing_token\":" + (r.fencing_token ? std::to_string(*r.fencing_token) : "null") +
           ",\"stale\":" + (l.stale ? "true" : "false") + ",\"stale_reason\":" +
           (l.stale ? json_string(l.stale_reason) : std::string("null")) + ",\"unreadable\":" + json_string(r.unreadable) +
           "}";
}

/// Why `v` (already filled in but for the flag) is stale; empty when it is not.
std::string stale_reason(const lock_view& v, timestamp now, const std::map<std::string, std::chrono::milliseconds>& at_most,
                         const std::map<std::string, process_heartbeat>& heartbeats) {
    const auto& r = v.record;
    if (!r.unreadable.empty()) return "the record is unreadable: " + r.unreadable;
    if (!v.held || read_heartbeat_record(r)) return {};
    const auto limit = at_most.find(r.name);
    if (limit != at_most.end() && now - r.locked_at > limit->second)
        return "held for " + format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(now - r.locked_at)) +
               ", longer than its lock_at_most_for " + format_duration(limit->second);
    const auto beat = heartbeats.find(process_of_owner(r.locked_by));
    if (beat != heartbeats.end() && beat->second.stopped)
        return "its holder " + beat->first + " stopped reporting: no heartbeat for " + format_duration(beat->second.silent);
    return {};
}

}  // namespace

void append_run_json(std::string& out, const run_summary& r) {
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(r.finished_at - r.started_at);
    out += "{\"outcome\":" + json_string(to_string(r.outcome)) + ",\"scheduled_at\":" + json_string(iso_utc(r.scheduled_at)) +
           ",\"started_at\":" + json_string(iso_utc(r.started_at)) + ",\"finished_at\":" +
           json_string(iso_utc(r.finished_at)) + ",\"duration_ms\":" + std::to_string(took.count()) +
           ",\"duration\":" + json_string(format_duration(took)) + ",\"duration_text\":" +
           json_string(readable_duration(took)) + ",\"message\":" + json_string(redact_uri_passwords(r.message)) + "}";
}

const lock_view* status_snapshot::lock_of(const task_status& t) const {
    const auto it = lock_index.find(t.lock_name);
    return it == lock_index.end() ? nullptr : &locks[it->second];
}

status_snapshot take_snapshot(const status_source& s, heartbeat_watch& heartbeats) {
    status_snapshot out;
    out.running = s.running();
    out.tasks = s.task_statuses();
    std::map<std::string, std::chrono::milliseconds> at_most;
    for (const auto& t : out.tasks) at_most[t.lock_name] = t.lock_at_most_for;
    try {
        auto& records_of = inspect(s.provider());
        auto records = records_of.list_locks();
        out.now = records_of.lock_time_now();  // after listing: see lock_inspector::lock_time_now
        const auto processes = heartbeats.observe(records, out.now);
        for (auto& r : records) {
            lock_view v;
            v.held = r.lock_until > out.now;
            if (v.held && r.lock_until != timestamp::max()) v.remaining = r.lock_until - out.now;
            v.record = std::move(r);
            v.stale_reason = stale_reason(v, out.now, at_most, processes);
            v.stale = !v.stale_reason.empty();
            out.lock_index[v.record.name] = out.locks.size();
            out.locks.push_back(std::move(v));
        }
    } catch (const std::exception& e) {
        out.now = s.wall_clock().now();
        out.locks_error = redact_uri_passwords(e.what());
    }
    return out;
}

std::string tasks_json(const status_snapshot& s) {
    std::string out = "{\"now\":" + json_string(iso_utc(s.now)) + ",\"running\":" + (s.running ? "true" : "false") +
                      ",\"locks_error\":" + (s.locks_error.empty() ? "null" : json_string(s.locks_error)) +
                      ",\"tasks\":[";
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
        const auto& t = s.tasks[i];
        if (i) out += ',';
        out += "{\"name\":" + json_string(t.name) + ",\"schedule\":" + json_string(t.schedule) +
               ",\"lock_name\":" + json_string(t.lock_name) +
               ",\"lock_at_most_for_ms\":" + std::to_string(t.lock_at_most_for.count()) +
               ",\"enabled\":" + (t.enabled ? "true" : "false") + ",\"running\":" + (t.running ? "true" : "false") +
               ",\"next_fire\":" + optional_time(t.next_fire) + ",\"last_outcome\":" +
               (t.recent.empty() ? std::string("null") : json_string(to_string(t.recent.back().outcome))) +
               ",\"recent\":[";
        for (std::size_t j = 0; j < t.recent.size(); ++j) {
            if (j) out += ',';
            append_run_json(out, t.recent[j]);
        }
        out += "],\"lock\":";
        if (const auto* l = s.lock_of(t)) append_lock(out, *l);
        else out += "null";
        out += '}';
    }
    return out + "]}";
}

std::string locks_json(const status_snapshot& s) {
    std::string out = "{\"now\":" + json_string(iso_utc(s.now)) + ",\"locks\":[";
    for (std::size_t i = 0; i < s.locks.size(); ++i) {
        if (i) out += ',';
        append_lock(out, s.locks[i]);
    }
    return out + "]}";
}

}  // namespace shedlock::detail
