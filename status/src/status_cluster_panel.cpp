// The status page's cluster panel (`/?task=NAME[&instance=I]`): one task's recent firings on
// every instance, read from the shared run store, with the instance that ran or skipped each.
#include "status_model.hpp"
#include "status_runs.hpp"
#include "status_text.hpp"

#include <shedlock/duration.hpp>

#include <algorithm>
#include <map>

namespace shedlock::detail {
namespace {

bool ran(const run_record& r) { return r.outcome == run_outcome::succeeded || r.outcome == run_outcome::failed; }

std::chrono::milliseconds took(const run_record& r) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(r.finished_at - r.started_at);
}

std::string instance_label(const std::string& instance, const std::string& this_instance) {
    return html_escape(instance) + (instance == this_instance ? " <small class=\"muted\">(this)</small>" : "");
}

/// Links that filter by instance: "all", then each instance seen (this one always offered).
std::string instance_links(const runs_query& q, const std::vector<run_record>& runs, const std::string& this_instance) {
    std::vector<std::string> seen{this_instance};
    if (q.instance) seen.push_back(*q.instance);
    for (const auto& r : runs) seen.push_back(r.instance);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    const std::string base = "?task=" + query_value(q.task);
    std::string out = "<nav class=\"instances\">instance: <a href=\"" + html_escape(base) + "#cluster\"" +
                      (q.instance ? "" : " class=\"current\"") + ">all</a>";
    for (const auto& i : seen)
        out += " <a data-instance=\"" + html_escape(i) + "\" href=\"" +
               html_escape(base + "&instance=" + query_value(i)) + "#cluster\"" +
               (q.instance == i ? " class=\"current\"" : "") + ">" + instance_label(i, this_instance) + "</a>";
    return out + "</nav>";
}

/// "12 firings shown: 7 ran (a ×5, b ×2), 5 skipped; last ran on a at T, took 3.5 s".
std::string summary(const std::vector<run_record>& runs, const std::string& this_instance) {
    std::map<std::string, std::size_t> ran_by;
    std::size_t ran_count = 0;
    for (const auto& r : runs)
        if (ran(r)) ++ran_by[r.instance], ++ran_count;
    std::string out = "<p class=\"summary\">" + std::to_string(runs.size()) + " records shown: " +
                      std::to_string(ran_count) + " ran";
    if (!ran_by.empty()) {
        out += " (";
        for (auto it = ran_by.begin(); it != ran_by.end(); ++it)
            out += (it == ran_by.begin() ? "" : ", ") + instance_label(it->first, this_instance) + " &times;" +
                   std::to_string(it->second);
        out += ")";
    }
    out += ", " + std::to_string(runs.size() - ran_count) + " skipped or not run";
    const auto last = std::find_if(runs.begin(), runs.end(), ran);
    if (last != runs.end())
        out += "; last ran on <b>" + instance_label(last->instance, this_instance) + "</b> at " +
               html_escape(iso_utc(last->started_at)) + ", took " + html_escape(readable_duration(took(*last)));
    else if (!runs.empty())
        out += "; <b>none of these ran the task</b>";
    return out + "</p>";
}

std::string run_row(const run_record& r, const std::string& this_instance) {
    const std::string outcome = to_string(r.outcome);
    const std::string duration = ran(r) ? html_escape(readable_duration(took(r))) + " <small class=\"muted\">" +
                                              html_escape(format_duration(took(r))) + "</small>"
                                        : std::string("<span class=\"muted\">-</span>");
    return "<tr data-instance=\"" + html_escape(r.instance) + "\" data-outcome=\"" + html_escape(outcome) + "\"><td>" +
           html_escape(iso_utc(r.scheduled_at)) + "</td><td>" + instance_label(r.instance, this_instance) +
           "</td><td><span class=\"badge " + outcome_class(outcome) + "\">" + html_escape(outcome) + "</span></td><td>" +
           html_escape(iso_utc(r.started_at)) + "</td><td class=\"took\">" + duration + "</td><td>" +
           (r.fencing_token ? std::to_string(*r.fencing_token) : "") + "</td><td class=\"msg\">" +
           html_escape(redact_uri_passwords(r.message)) + "</td></tr>\n";
}

std::string cluster_strip(const std::vector<run_record>& runs) {
    std::string out = "<span class=\"strip cluster-strip\">";
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)  // oldest first, as the task strips
        out += "<i class=\"" + outcome_class(to_string(it->outcome)) + "\" title=\"" +
               html_escape(iso_utc(it->scheduled_at) + " " + to_string(it->outcome) + " on " + it->instance) + "\"></i>";
    return out + "</span>";
}

}  // namespace

std::string cluster_panel(const runs_query& q, const std::vector<run_record>& runs, const std::string& this_instance,
                          const std::string& store_error) {
    std::string out = "<section id=\"cluster\" data-task=\"" + html_escape(q.task) + "\"><h2>" + html_escape(q.task) +
                      ": the cluster's last " + std::to_string(q.limit) + " records" +
                      (q.instance ? " of " + html_escape(*q.instance) : std::string()) +
                      " <a class=\"close\" href=\"./\">&times;</a></h2>";
    out += instance_links(q, runs, this_instance);
    if (!store_error.empty())
        return out + "<p class=\"badge flag\">the run store did not answer: " + html_escape(store_error) + "</p></section>\n";
    out += summary(runs, this_instance) + cluster_strip(runs);
    out += "<table id=\"cluster-runs\"><thead><tr><th>scheduled (UTC)</th><th>instance</th><th>outcome</th>"
           "<th>started (UTC)</th><th>took</th><th>fencing token</th><th>message</th></tr></thead><tbody>\n";
    for (const auto& r : runs) out += run_row(r, this_instance);
    if (runs.empty())
        out += "<tr><td colspan=\"7\" class=\"muted\">no records" +
               (q.instance ? " of instance " + html_escape(*q.instance) : std::string()) + "</td></tr>\n";
    return out + "</tbody></table></section>\n";
}

}  // namespace shedlock::detail
