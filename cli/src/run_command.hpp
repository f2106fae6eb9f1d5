#pragma once
// shedlock run: run a command only when the cluster-wide lock was acquired.

#include "exit_codes.hpp"

#include <string>
#include <vector>

namespace shedlock::cli {

/// The flags as given (main.cpp fills them); an empty string means "not given".
struct run_options {
    std::string provider;
    std::string name;
    std::string at_most;
    std::string at_least;
    bool keep_alive = false;
    std::string timeout;
    int skipped_exit = exit_locked;
    int unavailable_exit = exit_unavailable;
    std::vector<std::string> command;
    std::string config;
    std::string task;
};

/// `shedlock run --help`'s footer: exit statuses, the command's environment, examples.
extern const char* const run_footer;

/// Runs the command under the lock; the process exit status. Throws configuration_error,
/// missing_option, or storage_error(missing_schema).
int run_command(const run_options& options);

}  // namespace shedlock::cli
