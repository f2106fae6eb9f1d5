#pragma once
// The planted-bug worker's command: started the way `shedlock run` starts it (own process
// group, SIGTERM when the worker dies), waited for while a callback keeps the lease alive.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace shedlock::chaos {

/// Starts argv with `extra_env` added to this process's environment; -1 when fork fails.
pid_t start_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env);

/// Waits for the command. Every `interval` (if set) calls `keep_alive`; when it returns false
/// the lock is lost: the command's group gets SIGTERM (SIGKILL 10 s later) and `lost` is set.
/// Returns the exit code, or 128 + signal.
int wait_command(pid_t pid, std::chrono::milliseconds interval, const std::function<bool()>& keep_alive, bool& lost);

}  // namespace shedlock::chaos
