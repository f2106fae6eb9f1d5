#include "lock_name_template.hpp"
#include "prepared_task.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/utf8.hpp>

#include <set>

namespace shedlock::detail {
namespace {

std::chrono::milliseconds at_most_of(const task_definition& t, const scheduler_options& options) {
    if (t.lock_at_most_for) return *t.lock_at_most_for;
    if (options.default_lock_at_most_for) return *options.default_lock_at_most_for;
    throw configuration_error("has no lock_at_most_for and the scheduler has no default_lock_at_most_for; set "
                              "one (e.g. lock_at_most_for(\"PT30M\"))");
}

prepared_task prepare(const task_definition& t, const scheduler_options& options, timestamp now) {
    if (!t.errors.empty()) throw configuration_error(t.errors.front());
    if (!t.body) throw configuration_error("has no body");
    firing_times firings(t.schedule);
    const auto at_most = at_most_of(t, options);
    const auto minimum_hold = t.lock_at_least_for.value_or(std::chrono::milliseconds{0});
    if (t.misfire_grace < std::chrono::milliseconds{0})
        throw configuration_error("misfire_grace " + format_duration(t.misfire_grace) + " must not be negative");
    validate_lock_wait("wait_for_lock " + format_duration(t.wait_for_lock), t.wait_for_lock);
    const std::string name_template = t.lock_name.empty() ? t.name : t.lock_name;
    const bool templated = is_template(name_template);
    // Render once now: an unknown placeholder or an over-long result fails here, not at a firing.
    const std::string sample = render_lock_name(name_template, now, firings.zone(), options.env);
    lock_configuration lock(sample, at_most, minimum_hold);
    if (templated) lock = lock.rendered_from(name_template);  // metrics: one series per template
    const bool active = t.enabled && !firings.disabled();
    if (active && !firings.first(now))
        throw configuration_error(t.schedule.describe() + " matches no date in the next 100 years");
    if (!t.idempotency_key.empty()) {
        if (!options.claims)
            throw configuration_error("has idempotency_key \"" + t.idempotency_key +
                                      "\" but the scheduler has no claims store; set scheduler_options::claims");
        validate_claim_key(render_lock_name(t.idempotency_key, now, firings.zone(), options.env));
        if (t.claim_for && t.claim_for->count() <= 0)
            throw configuration_error("claim_for " + format_duration(*t.claim_for) + " must be positive");
    } else if (t.claim_for) {  // a key left out must not quietly turn idempotency off
        throw configuration_error("has claim_for " + format_duration(*t.claim_for) +
                                  " but no idempotency_key; add the key (e.g. \"settle:{date}\") or remove claim_for");
    }
    return prepared_task{t, std::move(firings), std::move(lock), templated,
                         renders_by_time(name_template), active, is_template(t.idempotency_key)};
}

}  // namespace

std::vector<prepared_task> prepare_tasks(const std::vector<task_definition>& tasks, const scheduler_options& options,
                                         timestamp now) {
    std::vector<prepared_task> prepared;
    std::string problems;
    std::set<std::string> seen;
    for (const auto& t : tasks) {
        const std::string who = "task \"" + printable_text(t.name) + "\" ";
        if (t.name.empty()) {
            problems += "\n  a task has an empty name; every task needs a unique name";
            continue;
        }
        // The name labels metrics and shows on the page, in JSON and in terminals.
        if (const auto problem = name_text_problem(t.name); !problem.empty()) {
            problems += "\n  task name \"" + printable_text(t.name) + "\" " + problem +
                        "; write the name in UTF-8 with printable characters only";
            continue;
        }
        if (!seen.insert(t.name).second) {
            problems += "\n  " + who + "is registered twice; task names must be unique";
            continue;
        }
        try {
            prepared.push_back(prepare(t, options, now));
        } catch (const configuration_error& e) {
            problems += "\n  " + who + "(" + t.schedule.describe() + "): " + e.what();
        }
    }
    if (!problems.empty()) throw configuration_error("scheduler not started; fix these tasks:" + problems);
    return prepared;
}

lock_configuration lock_for_firing(const prepared_task& task, timestamp scheduled_at, const std::string& env) {
    if (!task.templated) return task.lock;
    const auto& t = task.definition;
    return task.lock.with_name(render_lock_name(t.lock_name.empty() ? t.name : t.lock_name, scheduled_at,
                                                task.firings.zone(), env));
}

std::optional<idempotency_options> claim_for_firing(const prepared_task& task, timestamp scheduled_at,
                                                    const scheduler_options& options) {
    const auto& t = task.definition;
    if (t.idempotency_key.empty() || !options.claims) return std::nullopt;
    const std::string key = task.key_templated
                                ? render_lock_name(t.idempotency_key, scheduled_at, task.firings.zone(), options.env)
                                : t.idempotency_key;
    return idempotency_options{options.claims, key, t.claim_for.value_or(std::chrono::milliseconds{0})};
}

}  // namespace shedlock::detail
