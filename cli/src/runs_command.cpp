// shedlock runs: run records, newest first.
#include "runs_command.hpp"

#include "config_module.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "run_store_factory.hpp"
#include "usage_error.hpp"

#include <shedlock/run_store.hpp>

#include <algorithm>
#include <iostream>

namespace shedlock::cli {
namespace {

std::string counters_text(const std::map<std::string, std::int64_t>& counters) {
    std::string out;
    for (const auto& [k, v] : counters) out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return out;
}

std::string record_json(const run_record& r) {
    std::string counters = "{";
    for (const auto& [k, v] : r.counters) counters += (counters.size() > 1 ? ", " : "") + json_string(k) + ": " + std::to_string(v);
    return "{\"task\": " + json_string(r.task) + ", \"lock_name\": " + json_string(r.lock_name) +
           ", \"instance\": " + json_string(r.instance) + ", \"scheduled_at\": " + json_string(iso_time(r.scheduled_at)) +
           ", \"started_at\": " + json_string(iso_time(r.started_at)) +
           ", \"finished_at\": " + json_string(iso_time(r.finished_at)) + ", \"outcome\": " + json_string(to_string(r.outcome)) +
           ", \"fencing_token\": " + (r.fencing_token ? std::to_string(*r.fencing_token) : "null") +
           ", \"lock_lost\": " + (r.lock_lost ? "true" : "false") + ", \"message\": " + json_string(r.message) +
           ", \"counters\": " + counters + "}}";
}

void print(const std::vector<run_record>& records, bool json) {
    if (json) {
        std::cout << "[";
        for (std::size_t i = 0; i < records.size(); ++i) std::cout << (i ? ",\n " : "\n ") << record_json(records[i]);
        std::cout << (records.empty() ? "]\n" : "\n]\n");
        return;
    }
    std::vector<std::vector<std::string>> rows{{"TASK", "OUTCOME", "STARTED", "DURATION", "INSTANCE", "LOCK", "TOKEN", "COUNTERS", "MESSAGE"}};
    for (const auto& r : records)
        rows.push_back({r.task, std::string(to_string(r.outcome)) + (r.lock_lost ? " (lock lost)" : ""), iso_time(r.started_at),
                        human_duration(r.finished_at - r.started_at), r.instance, r.lock_name,
                        r.fencing_token ? std::to_string(*r.fencing_token) : "-", counters_text(r.counters), r.message});
    std::cout << format_table(rows);
}

}  // namespace

int runs_command(runs_options o) {
    if (!o.config.empty() && o.provider.empty()) o.provider = config_module().config_provider(o.config);
    if (o.provider.empty()) throw missing_option("--provider (or --config with [shedlock] provider) is required");
    auto store = open_run_store(o.provider, {});
    std::vector<run_record> records;
    const auto tasks = o.task.empty() ? store->tasks() : std::vector<std::string>{o.task};
    for (const auto& task : tasks) {
        auto some = store->last_runs(task, o.limit);
        records.insert(records.end(), some.begin(), some.end());
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const run_record& a, const run_record& b) { return a.started_at > b.started_at; });
    if (records.size() > o.limit) records.resize(o.limit);
    print(records, o.json);
    return exit_ok;
}

}  // namespace shedlock::cli
