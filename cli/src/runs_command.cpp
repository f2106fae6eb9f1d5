// shedlock runs: run records, newest first.
#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "run_store_factory.hpp"

#include <shedlock/config.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

namespace shedlock::cli {
namespace {

struct runs_options {
    std::string provider;
    std::string config;
    std::string task;
    std::size_t limit = 20;
    bool json = false;
};

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

int runs(runs_options o) {
    if (!o.config.empty() && o.provider.empty()) o.provider = load_config(o.config).provider;
    if (o.provider.empty()) throw CLI::RequiredError("--provider (or --config with [shedlock] provider) is required");
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

}  // namespace

void add_runs_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<runs_options>();
    auto* cmd = app.add_subcommand("runs", "Show run records of scheduled tasks, newest first");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI (its run-record store is read)")->envname("SHEDLOCK_PROVIDER");
    cmd->add_option("--config,-c", o->config, "Take the provider from this config file");
    cmd->add_option("--task,-t", o->task, "Only this task");
    cmd->add_option("--limit,-n", o->limit, "At most this many records (default 20)")->check(CLI::Range(1, 100000));
    cmd->add_flag("--json", o->json, "JSON for scripts");
    cmd->footer("\nExamples:\n  shedlock runs -p sqlite:/var/lib/app/locks.db\n  shedlock runs -c /etc/shedlock.toml --task nightly-report -n 5 --json");
    cmd->callback([o, &exit_status] { exit_status = runs(*o); });
}

}  // namespace shedlock::cli
