// shedlock run --config: the config file fills what the flags left open. Part of the config module
// (config_module.hpp): it needs toml++ and the scheduler's triggers.
#include "run_command.hpp"

#include <shedlock/config.hpp>
#include <shedlock/error.hpp>
#include <shedlock/trigger.hpp>

namespace shedlock::cli {

run_plan with_config(run_plan plan, const run_options& o) {
    const shedlock_config file = load_config(o.config);
    const std::string task_name = o.task.empty() ? o.name : o.task;
    if (task_name.empty()) throw configuration_error("--config needs --task NAME (a [tasks.NAME] table of " + o.config + ")");
    const task_config& t = file.task(task_name);
    if (plan.provider.empty()) plan.provider = file.provider;
    const trigger zone_source = t.cron ? cron(*t.cron, t.zone.value_or("")) : fixed_rate(std::chrono::seconds{1});
    if (plan.name.empty() || !o.task.empty())
        plan.name = render_template(t.lock_name.value_or(task_name), zone_source, system_clock::instance().now(), file.env);
    if (!plan.at_most) plan.at_most = t.lock_at_most_for ? t.lock_at_most_for : file.default_lock_at_most_for;
    if (!plan.minimum_hold) plan.minimum_hold = t.lock_at_least_for ? t.lock_at_least_for : file.default_lock_at_least_for;
    if (t.keep_alive) plan.keep_alive = plan.keep_alive || *t.keep_alive;
    if (!plan.timeout) plan.timeout = t.timeout;
    if (!plan.wait) plan.wait = t.wait_for_lock;
    if (plan.command.empty()) plan.command = t.command;
    const std::string table = o.config + ": [tasks." + task_name + "] ";
    if (plan.idempotency_key.empty() && t.idempotency_key) {
        plan.idempotency_key = render_template(*t.idempotency_key, zone_source, system_clock::instance().now(), file.env);
        if (plan.idempotency_key.empty())  // an empty key would quietly turn idempotency off
            throw configuration_error(table + "idempotency_key is empty once rendered; give a key such as \"settle:{date}\"");
    }
    if (t.claim_for && plan.idempotency_key.empty())
        throw configuration_error(table + "claim_for applies only with an idempotency key; add idempotency_key "
                                  "(or --once-key) or remove claim_for");
    if (!plan.claim_for) plan.claim_for = t.claim_for;
    return plan;
}

}  // namespace shedlock::cli
