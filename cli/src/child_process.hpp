#pragma once
// Running the wrapped command: spawn in its own process group, forward our signals to it,
// stop it on timeout or lock loss, report how it ended.

#include "child_exec.hpp"

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
    /// When this process is in the terminal's foreground group, make the command's group the
    /// foreground while it runs (so it can read the terminal). Only for one command at a time.
    bool take_terminal = false;
    /// With forward_signals: once the command has exited, a forwarded signal no longer ends this
    /// process but is noted, until end_held_signals(). `shedlock run` records the completion and
    /// releases the lock first (the key would stay running, the lock held until lock_until).
    bool hold_signals_after_exit = false;
};

/// Starts command.argv[0] (searched in PATH) the way a crontab line would (ARCHITECTURE §8):
/// descriptors 0-2 only, default signal dispositions and an empty mask, the environment without
/// the tool's own configuration plus `extra_env`, in a new process group. With
/// policy.forward_signals, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 that this process
/// receives go to that group (each followed by SIGCONT) until it exits. Blocks until it exited.
child_exit run_child(const child_command& command, const wait_policy& policy);

/// After run_child with hold_signals_after_exit: restores the default dispositions and returns
/// the last signal noted since the command exited (0: none).
int end_held_signals();

}  // namespace shedlock::cli
