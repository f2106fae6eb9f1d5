// The status page: one self-contained HTML document rendered on the server (no scripts needed to
// read it, nothing loaded from elsewhere), compact enough for a thousand tasks.
#include "status_model.hpp"
#include "status_text.hpp"

#include <shedlock/duration.hpp>

#include <algorithm>

namespace shedlock::detail {
namespace {

constexpr const char* page_head = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta http-equiv="refresh" content="30"><title>shedlock status</title>
<style>
body{font:13px/1.35 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{padding:10px 16px;background:#1d2330;color:#fff}header h1{font-size:16px;margin:0 0 2px}
header span{margin-right:14px;opacity:.85}
.wrap{padding:8px 16px}input{font:inherit;padding:3px 6px;width:260px}
table{border-collapse:collapse;width:100%;background:#fff;margin-top:8px}
th{position:sticky;top:0;background:#e9ecf1;text-align:left;font-weight:600}
th,td{padding:3px 8px;border-bottom:1px solid #e3e6eb;white-space:nowrap;vertical-align:middle}
td.msg{white-space:normal;max-width:360px;color:#5a6270}
.strip{display:inline-flex;gap:1px}.strip i{display:inline-block;width:7px;height:14px;border-radius:1px}
.o-succeeded{background:#2e9d55;color:#fff}.o-failed{background:#d33a2c;color:#fff}
.o-skipped_locked{background:#9aa3b0;color:#fff}.o-skipped_running{background:#e0a21b;color:#fff}
.o-lock_error{background:#7a2ab8;color:#fff}.o-skipped_done{background:#3b78c4;color:#fff}.o-none{background:#d5d9e0}
.badge{padding:1px 6px;border-radius:3px;font-size:12px}
.flag{background:#fde8e6;color:#b3261e;font-weight:600}.muted{color:#8a919c}.why{display:block;color:#b3261e}
#cluster{background:#fff;border:1px solid #d5d9e0;padding:6px 10px;margin-top:8px}#cluster h2{font-size:14px;margin:2px 0 6px}
#cluster .close{float:right;text-decoration:none;color:#5a6270}.instances a{margin-left:8px}.instances a.current{font-weight:700;color:#1d2330}
.cluster-strip i{width:10px;height:16px}.summary{margin:6px 0}td.took small{margin-left:4px}a{color:#2456a6}
</style></head><body>
)";

std::string strip(const task_status& t) {
    std::string out = "<span class=\"strip\">";
    for (const auto& r : t.recent)
        out += "<i class=\"" + outcome_class(to_string(r.outcome)) + "\" title=\"" +
               html_escape(iso_utc(r.scheduled_at) + " " + to_string(r.outcome)) + "\"></i>";
    return out + "</span>";
}

std::string lock_cells(const status_snapshot& s, const task_status& t) {
    const auto* l = s.lock_of(t);
    if (!l || !l->held) return "<td class=\"muted\">free</td><td></td>";
    return "<td>" + html_escape(l->record.locked_by) + "</td><td>" + html_escape(format_duration(l->remaining)) +
           "</td>";
}

std::string flags(const status_snapshot& s, const task_status& t) {
    std::string out;
    const auto* l = s.lock_of(t);
    if (l && l->stale)
        out += "<span class=\"badge flag\">stale lock</span> <small class=\"why\">" + html_escape(l->stale_reason) +
               "</small> ";
    if (t.running) out += "<span class=\"badge o-skipped_running\">running</span> ";
    if (!t.enabled) out += "<span class=\"badge o-none\">disabled</span>";
    return out;
}

void append_row(std::string& out, const status_snapshot& s, const task_status& t) {
    const std::string last = t.recent.empty() ? "none" : to_string(t.recent.back().outcome);
    out += "<tr data-task=\"" + html_escape(t.name) + "\"><td><a href=\"?task=" + html_escape(query_value(t.name)) +
           "#cluster\" title=\"the cluster's runs of this task\">" + html_escape(t.name) + "</a></td><td>" +
           html_escape(t.schedule) + "</td><td>" + (t.next_fire ? html_escape(iso_utc(*t.next_fire)) : "-") +
           "</td><td><span class=\"badge last " + outcome_class(last) + "\">" + html_escape(last) + "</span></td><td>" +
           strip(t) + "</td>" + lock_cells(s, t) + "<td>" + flags(s, t) + "</td><td class=\"msg\">" +
           (t.recent.empty() ? "" : html_escape(redact_uri_passwords(t.recent.back().message))) + "</td></tr>\n";
}

}  // namespace

std::string outcome_class(const std::string& outcome) {
    for (const char* known : {"succeeded", "failed", "skipped_locked", "skipped_running", "skipped_done", "lock_error"})
        if (outcome == known) return "o-" + outcome;
    return "o-none";
}

std::string status_page(const status_snapshot& s, const std::string& backend, const std::string& panel) {
    std::size_t failing = 0, stale = 0;
    for (const auto& t : s.tasks)
        failing += !t.recent.empty() && (t.recent.back().outcome == run_outcome::failed ||
                                         t.recent.back().outcome == run_outcome::lock_error);
    for (const auto& l : s.locks) stale += l.stale;
    std::string out = page_head;
    out.reserve(out.size() + s.tasks.size() * 900);
    out += "<header><h1>shedlock</h1><span>" + std::string(s.running ? "scheduler running" : "scheduler STOPPED") +
           "</span><span>backend " + html_escape(backend.empty() ? "(not shown)" : backend) + "</span><span id=\"count\">" +
           std::to_string(s.tasks.size()) + " tasks</span><span>" + std::to_string(failing) +
           " failing</span><span>" + std::to_string(stale) + " stale locks</span><span>as of " +
           html_escape(iso_utc(s.now)) + "</span></header>\n<div class=\"wrap\">";
    if (!s.locks_error.empty())
        out += "<p class=\"badge flag\">locks could not be listed: " + html_escape(s.locks_error) + "</p>";
    out += panel;
    out += "<input id=\"filter\" placeholder=\"filter tasks\" aria-label=\"filter tasks\">"
           "<table id=\"tasks\"><thead><tr><th>task</th><th>schedule</th><th>next fire (UTC)</th><th>last</th>"
           "<th>recent runs (this instance)</th><th>holder</th><th>lease left</th><th>flags</th><th>last message</th></tr></thead><tbody>\n";
    // Problems first (last run failed, stale lock), then in registration order: with a thousand
    // tasks the rows that need a look are on the first screen.
    std::vector<const task_status*> rows;
    for (const auto& t : s.tasks) rows.push_back(&t);
    std::stable_partition(rows.begin(), rows.end(), [&s](const task_status* t) {
        const auto* l = s.lock_of(*t);
        return (l && l->stale) || (!t->recent.empty() && (t->recent.back().outcome == run_outcome::failed ||
                                                          t->recent.back().outcome == run_outcome::lock_error));
    });
    for (const auto* t : rows) append_row(out, s, *t);
    out += "</tbody></table></div>\n<script>document.getElementById('filter').addEventListener('input',function(e){"
           "var q=e.target.value.toLowerCase();document.querySelectorAll('#tasks tbody tr').forEach(function(r){"
           "r.style.display=r.dataset.task.toLowerCase().indexOf(q)<0?'none':''})})</script></body></html>\n";
    return out;
}

}  // namespace shedlock::detail
