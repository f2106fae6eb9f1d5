#pragma once
// Freezing a server process for a test (SIGSTOP) and knowing it is frozen.
//
// kill(SIGSTOP) returns before the stop has reached the target: the group stop reaches each
// thread when it next enters the kernel, and on a loaded machine a connection thread of a
// multi-threaded server (mariadbd) still answered a statement sent right after kill() returned.
// A test that freezes a server therefore waits until every thread shows state T.

#include <sys/types.h>

#include <chrono>
#include <vector>

namespace shedlock::test {

/// The parent of `pid` (from /proc), -1 when it is gone.
pid_t parent_process(pid_t pid);

/// True when `pid` is stopped (state T or t in /proc/PID/stat).
bool process_is_stopped(pid_t pid);

/// `root` and every process below it (PostgreSQL's backends below the postmaster).
std::vector<pid_t> process_tree(pid_t root);

/// True when every thread of `pid` is stopped, or the process is gone.
bool all_threads_stopped(pid_t pid);

/// SIGSTOP to each of `pids`, then waits until every thread of each is stopped. Throws
/// std::runtime_error naming the process when one is not stopped within `limit`.
void stop_processes(const std::vector<pid_t>& pids, std::chrono::milliseconds limit = std::chrono::seconds(10));

/// SIGCONT to each of `pids`.
void continue_processes(const std::vector<pid_t>& pids);

}  // namespace shedlock::test
