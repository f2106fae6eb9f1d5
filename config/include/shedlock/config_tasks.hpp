#pragma once
/// \file
/// Applying a configuration file to tasks declared in code, and building scheduler options.

#include <shedlock/config.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/task_registry.hpp>

namespace shedlock {

/// Overrides every field of `task` that `config` sets: schedule (cron + zone, fixed_rate,
/// fixed_delay, initial_delay), misfire_grace, lock_at_most_for, lock_at_least_for, lock_name,
/// keep_alive, idempotency_key, claim_for, enabled. Fields the file does not set keep the code's values.
void apply_task_config(task_definition& task, const task_config& config);

/// Applies `[tasks.<name>]` to the registered task of that name, and the file's
/// default_lock_at_least_for to tasks that set none. A `[tasks.<name>]` without a registered task
/// is a configuration_error naming the file, line and the registered names (a typo would otherwise
/// silently leave the real task unconfigured), unless the table has a `command` (a daemon task).
void apply_config(task_registry& registry, const shedlock_config& config);

/// worker_threads, default_lock_at_most_for, env and instance from `[shedlock]`.
scheduler_options scheduler_options_from(const shedlock_config& config);

/// A task_definition for a `[tasks.<name>]` table on its own (no code): schedule and lock policy
/// from the file, body left empty for the caller (the daemon runs `command`). Throws
/// configuration_error naming file and line when the table has no schedule.
task_definition task_from_config(const task_config& config, const shedlock_config& file);

}  // namespace shedlock
