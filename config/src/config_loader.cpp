#include "config_file.hpp"
#include "table_reader.hpp"

#include <shedlock/config.hpp>
#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_wait.hpp>


namespace shedlock {
namespace {

using detail::table_reader;

void read_schedule(table_reader& r, task_config& t) {
    t.cron = r.text("cron");
    t.zone = r.text("zone");
    t.fixed_rate = r.duration("fixed_rate");
    t.fixed_delay = r.duration("fixed_delay");
    t.initial_delay = r.duration("initial_delay");
    t.misfire_grace = r.duration("misfire_grace");
    const int schedules = (t.cron ? 1 : 0) + (t.fixed_rate ? 1 : 0) + (t.fixed_delay ? 1 : 0);
    if (schedules > 1)
        throw configuration_error(r.where() + ": [tasks." + t.name +
                                  "] has more than one of cron, fixed_rate, fixed_delay; keep exactly one");
    if (t.zone && !t.cron)
        throw configuration_error(r.about("zone") + " only applies to cron; remove it or add cron");
}

task_config read_task(const std::string& name, const toml::table& table, const std::string& file) {
    task_config t;
    t.name = name;
    t.line = static_cast<int>(table.source().begin.line);
    table_reader r(table, file, "tasks." + name);
    r.secret("env");
    read_schedule(r, t);
    t.lock_at_most_for = r.duration("lock_at_most_for");
    t.lock_at_least_for = r.duration("lock_at_least_for");
    t.lock_name = r.text("lock_name");
    t.keep_alive = r.boolean("keep_alive");
    t.wait_for_lock = r.duration("wait_for_lock");
    t.idempotency_key = r.text("idempotency_key");
    t.claim_for = r.duration("claim_for");
    t.enabled = r.boolean("enabled");
    t.command = r.text_array("command");
    t.timeout = r.duration("timeout");
    t.env = r.text_table("env");
    r.finish();
    if (t.lock_at_most_for && t.lock_at_most_for->count() == 0)
        throw configuration_error(r.about("lock_at_most_for") + " must be positive, e.g. \"PT10M\"");
    if (t.wait_for_lock) validate_lock_wait(r.about("wait_for_lock"), *t.wait_for_lock);
    if (t.claim_for && t.claim_for->count() <= 0)
        throw configuration_error(r.about("claim_for") + " must be positive, e.g. \"PT1H\"");
    if (t.idempotency_key && t.idempotency_key->empty())
        throw configuration_error(r.about("idempotency_key") +
                                  " is empty; give a key template such as \"settle:{date}\" or remove it");
    return t;
}

void read_main(const toml::table& table, const std::string& file, shedlock_config& c) {
    table_reader r(table, file, "shedlock");
    r.secret("provider");
    c.provider = r.text("provider").value_or("");
    c.instance = r.text("instance").value_or("");
    c.env = r.text("env").value_or("");
    c.default_lock_at_most_for = r.duration("default_lock_at_most_for");
    c.default_lock_at_least_for = r.duration("default_lock_at_least_for");
    c.workers = static_cast<std::size_t>(r.integer("workers", 1, 256).value_or(4));
    c.run_retention = static_cast<std::size_t>(r.integer("run_retention", 1, 10'000'000).value_or(1000));
    c.heartbeat = r.duration("heartbeat");
    c.lock_retention = r.duration("lock_retention");
    r.finish();
    if (c.lock_retention && c.lock_retention->count() <= 0)
        throw configuration_error(r.about("lock_retention") + " must be positive (e.g. \"P1D\")");
    if (c.heartbeat && *c.heartbeat > std::chrono::hours{1})
        throw configuration_error(r.about("heartbeat") + " must be at most PT1H (e.g. \"PT10S\"), or PT0S for none");
    if (c.heartbeat && c.heartbeat->count() > 0 && *c.heartbeat < min_heartbeat_every)
        throw configuration_error(r.about("heartbeat") +
                                  " is below the floor PT0.1S (each beat is a write to the backend); give PT0.1S to "
                                  "PT1H (e.g. \"PT10S\"), or PT0S for none");
}

shedlock_config from_table(const toml::table& root, const std::string& file) {
    shedlock_config c;
    c.file = file;
    table_reader top(root, file, "top level");
    top.allow("shedlock");
    top.allow("tasks");
    top.finish();  // a misspelled section such as [shedlok] or [task.x] is an error, not ignored
    for (const auto& [key, node] : root)
        if (!node.is_table()) throw configuration_error(top.where(node) + ": [" + std::string(key.str()) + "] must be a table");
    if (const auto* main = root.get_as<toml::table>("shedlock")) read_main(*main, file, c);
    if (const auto* tasks = root.get_as<toml::table>("tasks")) {
        for (const auto& [key, node] : *tasks) {
            const std::string name(key.str());
            const auto* table = node.as_table();
            if (!table) throw configuration_error(top.where(node) + ": tasks." + name + " must be a table [tasks." + name + "]");
            c.tasks.emplace(name, read_task(name, *table, file));
        }
    }
    return c;
}

}  // namespace

const task_config& shedlock_config::task(const std::string& name) const {
    auto it = tasks.find(name);
    if (it != tasks.end()) return it->second;
    std::string known;
    for (const auto& [n, t] : tasks) known += (known.empty() ? "" : ", ") + n;
    throw configuration_error(file + ": no [tasks." + name + "]; tasks in this file: " + (known.empty() ? "none" : known));
}

shedlock_config parse_config(const std::string& text, const std::string& source_name) {
    try {
        return from_table(toml::parse(text, source_name), source_name);
    } catch (const toml::parse_error& e) {
        throw configuration_error(source_name + ":" + std::to_string(e.source().begin.line) + ": " +
                                  std::string(e.description()));
    }
}

shedlock_config load_config(const std::string& path) { return parse_config(detail::read_config_file(path), path); }

}  // namespace shedlock
