#pragma once
// A task definition checked at start(): compiled firing times and lock policy.

#include "firing_times.hpp"

#include <shedlock/lock_configuration.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/task_definition.hpp>

#include <vector>

namespace shedlock::detail {

struct prepared_task {
    task_definition definition;
    firing_times firings;
    lock_configuration lock;  ///< name = the rendered template for the firing at hand
    bool templated = false;
    bool renders_by_time = false;  ///< the lock name has {date} or {datetime}: old names expire for good
    bool active = true;       ///< enabled and not cron "-"
    bool key_templated = false;  ///< idempotency_key has placeholders
};

/// Checks every definition and returns them compiled. Collects all problems and throws one
/// configuration_error listing each (`task "x": ...`), so a failed start names everything at once.
std::vector<prepared_task> prepare_tasks(const std::vector<task_definition>& tasks, const scheduler_options& options,
                                         timestamp now);

/// The lock configuration of one firing (renders the template at `scheduled_at`).
lock_configuration lock_for_firing(const prepared_task& task, timestamp scheduled_at, const std::string& env);

/// The idempotency options of one firing (renders the key template at `scheduled_at`); empty
/// when the task has no idempotency_key.
std::optional<idempotency_options> claim_for_firing(const prepared_task& task, timestamp scheduled_at,
                                                    const scheduler_options& options);

}  // namespace shedlock::detail
