#pragma once
// Starting, waiting for and signalling the processes of a chaos run without ever signalling a
// recycled pid: children are watched through pidfds and reaped only after the caller has
// recorded their end (see attempt_registry), grandchildren are signalled through pidfds opened
// while they are verifiably the child of a known process.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace shedlock::chaos {

struct spawn_request {
    std::vector<std::string> argv;  ///< argv[0]: absolute path
    std::vector<std::string> env;   ///< the complete environment, "NAME=value"
    std::string output_path;        ///< stdout and stderr go here (truncated first)
};

/// This process's environment without what must not leak into a worker's `shedlock run`:
/// SHEDLOCK_PROVIDER and any libfaketime setting.
std::vector<std::string> base_environment();

/// Starts the program in a new session (no controlling terminal, so `shedlock run` never
/// takes over the terminal of whoever runs the suite), stdin from /dev/null. Throws on failure.
pid_t spawn_process(const spawn_request& request);

/// A started child process, watched through a pidfd.
class child_process {
public:
    explicit child_process(pid_t pid);
    ~child_process();
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    pid_t pid() const noexcept { return pid_; }
    /// True once the child has exited (or exits before `deadline_us`, chaos_clock time). The
    /// child is not reaped, so its pid cannot be reused while the caller still may signal it.
    bool wait_exit(std::int64_t deadline_us);
    /// Reaps the child; returns its exit code, or 128 + signal. Sets `signalled`.
    int reap(bool& signalled);

private:
    pid_t pid_;
    int pidfd_;
};

/// The direct children of `parent` (from /proc/<parent>/task/*/children).
std::vector<pid_t> children_of(pid_t parent);

/// A pidfd for `pid`, opened only while `pid` is a child of `parent`; -1 otherwise.
int open_child_pidfd(pid_t parent, pid_t pid);

/// Sends `sig` through a pidfd; false when the process is gone.
bool send_signal(int pidfd, int sig);

}  // namespace shedlock::chaos
