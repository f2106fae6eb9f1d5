#pragma once
// Running the wrapped command: spawn in its own process group, forward our signals to it,
// stop it on timeout or lock loss, report how it ended.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::cli {

struct child_exit {
    int status = 0;           ///< exit code, or 128 + signal
    bool signalled = false;   ///< killed by a signal
    bool timed_out = false;   ///< stopped because the deadline passed
    bool exec_failed = false; ///< could not be started; `error` says why
    std::string error;
};

struct wait_policy {
    std::optional<std::chrono::steady_clock::time_point> deadline;  ///< stop the command then
    std::function<bool()> stop_requested;                           ///< polled; true -> stop it
    std::chrono::milliseconds kill_grace{10'000};                   ///< SIGTERM, then SIGKILL after this
    /// Pass TERM/INT/HUP/QUIT/USR1/USR2 received by this process to the command. Only for one
    /// command at a time (`shedlock run`); the daemon stops its commands through stop_requested.
    bool forward_signals = true;
};

/// Starts argv[0] (searched in PATH) with `extra_env` added, in a new process group with an empty
/// signal mask, and (policy.forward_signals) forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and
/// SIGUSR2 that this process receives to that group until it exits. Blocks until it has exited.
child_exit run_child(const std::vector<std::string>& argv,
                     const std::vector<std::pair<std::string, std::string>>& extra_env, const wait_policy& policy);

}  // namespace shedlock::cli
