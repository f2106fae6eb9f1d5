#pragma once
// The daemon's tasks: `[tasks.<name>]` tables with a `command`, run under the scheduler.

#include <shedlock/config.hpp>
#include <shedlock/task_definition.hpp>

#include <string>
#include <vector>

namespace shedlock::cli {

/// One task per `[tasks.<name>]`; its body runs `command` with {date}, {datetime}, {env}, {task},
/// {lock_name} and {fencing_token} rendered in each argument (other braces stay as they are), the
/// task's `env` plus SHEDLOCK_TASK, SHEDLOCK_LOCK_NAME, SHEDLOCK_FENCING_TOKEN and
/// SHEDLOCK_SCHEDULED_AT in its environment but not the variables `secret_env` (the provider's
/// password_env), and `timeout`. A non-zero exit, a signal, a timeout or a command that cannot
/// start makes the run `failed` with that message. Throws configuration_error naming file and
/// line for a table without command or schedule.
std::vector<task_definition> daemon_tasks(const shedlock_config& config, const std::vector<std::string>& secret_env);

}  // namespace shedlock::cli
