#pragma once
// Runs the built `shedlock` binary as a user would: real processes, captured output, exit status.

#include <sys/types.h>

#include <string>
#include <vector>

namespace shedlock::test {

struct cli_result {
    int status = -1;  ///< exit status, or 128 + signal
    std::string out;
    std::string err;
};

/// Runs `shedlock args...` to completion.
cli_result run_cli(const std::vector<std::string>& args);

/// Starts `shedlock args...` in the background (output discarded); returns its pid.
pid_t start_cli(const std::vector<std::string>& args);

/// A wait status as a shell shows it: the exit status, or 128 + the signal that killed it.
int exit_status_of(int wait_status);

/// Waits for a pid from start_cli; returns its exit status (128 + signal when killed).
int wait_cli(pid_t pid);

/// Waits up to `seconds` for `path` to exist.
bool wait_for_file(const std::string& path, double seconds);

/// Reads a whole file ("" when absent).
std::string read_file(const std::string& path);

}  // namespace shedlock::test
