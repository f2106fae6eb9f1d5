#include "status_model.hpp"
#include "status_runs.hpp"
#include "status_text.hpp"

#include <algorithm>
#include <charconv>

namespace shedlock::detail {
namespace {

/// The value as an error message may show it: escaped later, and cut so that a megabyte of query
/// is not echoed back.
std::string shown_value(const std::string& v) { return v.size() <= 64 ? v : v.substr(0, 64) + "..."; }

/// Empty when `v` may be a `name` filter value, else the 400's message naming it.
std::string value_problem(const char* name, const std::string& v) {
    if (v.size() > max_runs_query_value_bytes)
        return std::string(name) + " \"" + shown_value(v) + "\" is " + std::to_string(v.size()) + " bytes long; at most " +
               std::to_string(max_runs_query_value_bytes) + " are allowed";
    if (std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return std::string(name) + " \"" + shown_value(v) + "\" contains a control character; names have none";
    return {};
}

std::optional<std::string> parameter(const std::map<std::string, std::string>& params, const char* name) {
    const auto it = params.find(name);
    if (it == params.end() || it->second.empty()) return std::nullopt;
    return it->second;
}

}  // namespace

std::variant<runs_query, runs_query_error> parse_runs_query(const std::map<std::string, std::string>& params,
                                                            const std::vector<task_status>& known) {
    runs_query q;
    if (const auto v = parameter(params, "limit")) {
        const auto r = std::from_chars(v->data(), v->data() + v->size(), q.limit);
        if (r.ec != std::errc{} || r.ptr != v->data() + v->size() || q.limit == 0 || q.limit > max_runs_limit)
            return runs_query_error{400, "limit \"" + shown_value(*v) + "\" is not a number from 1 to " +
                                             std::to_string(max_runs_limit)};
    }
    q.instance = parameter(params, "instance");
    if (q.instance)
        if (auto problem = value_problem("instance", *q.instance); !problem.empty()) return runs_query_error{400, problem};
    q.task = parameter(params, "task").value_or("");
    if (auto problem = value_problem("task", q.task); !problem.empty()) return runs_query_error{400, problem};
    if (!q.task.empty() && std::none_of(known.begin(), known.end(), [&](const task_status& t) { return t.name == q.task; }))
        return runs_query_error{404, "no task named \"" + q.task + "\""};
    return q;
}

std::vector<run_record> read_runs(run_store& store, const runs_query& q, const std::vector<task_status>& tasks) {
    std::vector<std::string> names;
    if (!q.task.empty()) names.push_back(q.task);
    else for (const auto& t : tasks) names.push_back(t.name);
    std::vector<run_record> out;
    for (const auto& name : names) {
        auto runs = q.instance ? store.last_runs_of_instance(name, *q.instance, q.limit) : store.last_runs(name, q.limit);
        std::move(runs.begin(), runs.end(), std::back_inserter(out));
    }
    return out;
}

std::string runs_json(const runs_query& q, const std::vector<run_record>& runs, const std::string& this_instance) {
    std::string out = "{\"this_instance\":" + json_string(this_instance) +
                      ",\"task\":" + (q.task.empty() ? std::string("null") : json_string(q.task)) +
                      ",\"instance\":" + (q.instance ? json_string(*q.instance) : std::string("null")) +
                      ",\"limit\":" + std::to_string(q.limit) + ",\"runs\":[";
    bool first = true;
    for (const auto& r : runs) {
        if (!first) out += ',';
        first = false;
        out += "{\"task\":" + json_string(r.task) + ",\"lock_name\":" + json_string(r.lock_name) +
               ",\"instance\":" + json_string(r.instance) + ",\"this_instance\":" +
               (r.instance == this_instance ? "true" : "false") + ",\"fencing_token\":" +
               (r.fencing_token ? std::to_string(*r.fencing_token) : "null") + ",\"lock_lost\":" +
               (r.lock_lost ? "true" : "false") + ",\"run\":";
        append_run_json(out, run_summary{r.scheduled_at, r.started_at, r.finished_at, r.outcome, r.message});
        out += '}';
    }
    return out + "]}";
}

}  // namespace shedlock::detail
