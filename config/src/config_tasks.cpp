#include <shedlock/config_tasks.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

namespace shedlock {
namespace {

void apply_schedule(task_definition& task, const task_config& c) {
    if (c.cron) task.schedule = cron(*c.cron, c.zone.value_or(""));
    if (c.fixed_rate) task.schedule = fixed_rate(*c.fixed_rate, c.initial_delay.value_or(std::chrono::milliseconds{0}));
    if (c.fixed_delay) task.schedule = fixed_delay(*c.fixed_delay, c.initial_delay.value_or(std::chrono::milliseconds{0}));
    if (c.initial_delay && !c.fixed_rate && !c.fixed_delay && task.schedule.kind != trigger_kind::cron)
        task.schedule.initial_delay = *c.initial_delay;
}

std::string where(const shedlock_config& file, const task_config& c) {
    return file.file + ":" + std::to_string(c.line) + ": [tasks." + c.name + "]";
}

}  // namespace

void apply_task_config(task_definition& task, const task_config& c) {
    apply_schedule(task, c);
    if (c.misfire_grace) task.misfire_grace = *c.misfire_grace;
    if (c.lock_at_most_for) task.lock_at_most_for = c.lock_at_most_for;
    if (c.lock_at_least_for) task.lock_at_least_for = c.lock_at_least_for;
    if (c.lock_name) task.lock_name = *c.lock_name;
    if (c.keep_alive) task.keep_alive = *c.keep_alive;
    if (c.wait_for_lock) task.wait_for_lock = *c.wait_for_lock;
    if (c.idempotency_key) task.idempotency_key = *c.idempotency_key;
    if (c.claim_for) task.claim_for = c.claim_for;
    if (c.enabled) task.enabled = *c.enabled;
}

void apply_config(task_registry& registry, const shedlock_config& config) {
    for (const auto& [name, c] : config.tasks) {
        task_definition* task = registry.find(name);
        if (!task) {
            if (!c.command.empty()) continue;  // a daemon task, run by `shedlock daemon`
            std::string known;
            for (const auto& t : registry.tasks()) known += (known.empty() ? "" : ", ") + t.name;
            throw configuration_error(where(config, c) + " names no registered task; registered: " +
                                      (known.empty() ? "none" : known) + " (check the spelling)");
        }
        apply_task_config(*task, c);
    }
    if (!config.default_lock_at_least_for) return;
    // The file's default fills only what neither the code nor the file set (an explicit 0 stays).
    for (const auto& t : registry.tasks())
        if (!t.lock_at_least_for) registry.find(t.name)->lock_at_least_for = config.default_lock_at_least_for;
}

scheduler_options scheduler_options_from(const shedlock_config& config) {
    scheduler_options options;
    options.worker_threads = config.workers;
    options.default_lock_at_most_for = config.default_lock_at_most_for;
    options.env = config.env;
    options.instance = config.instance;
    if (config.lock_retention) options.rendered_lock_retention = config.lock_retention;
    return options;
}

task_definition task_from_config(const task_config& c, const shedlock_config& file) {
    if (!c.cron && !c.fixed_rate && !c.fixed_delay)
        throw configuration_error(where(file, c) + " has no schedule; add cron = \"0 0 2 * * ?\", fixed_rate = \"PT1M\" "
                                                   "or fixed_delay = \"PT30S\"");
    task_definition task;
    task.name = c.name;
    apply_task_config(task, c);
    if (!c.lock_at_least_for) task.lock_at_least_for = file.default_lock_at_least_for;
    return task;
}

}  // namespace shedlock
