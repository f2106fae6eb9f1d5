#pragma once
// shedlock run: run a command only when the cluster-wide lock was acquired.

#include "exit_codes.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::cli {

/// The flags as given (main.cpp fills them); an empty string means "not given".
struct run_options {
    std::string provider;
    std::string name;
    std::string at_most;
    std::string minimum_hold;  ///< --at-least (lock_at_least_for)
    bool keep_alive = false;
    std::string timeout;
    std::string wait;  ///< --wait: how long to wait for a lock held elsewhere
    bool wait_given = false;  ///< --wait was on the command line, possibly empty (an error)
    int skipped_exit = exit_locked;
    int unavailable_exit = exit_unavailable;
    std::vector<std::string> command;
    std::string config;
    std::string task;
    std::string idempotency_key;  ///< --once-key (or the config file's idempotency_key when not given)
    bool idempotency_key_given = false;  ///< --once-key was on the command line, possibly empty (an error)
    std::string claim_for;  ///< not given: the config file's claim_for, else --at-most
    bool claim_for_given = false;
    int done_exit = exit_done;
};

/// What to run, with every duration parsed: the flags first, then the config file.
struct run_plan {
    std::string provider;
    std::string name;
    std::optional<std::chrono::milliseconds> at_most;
    std::optional<std::chrono::milliseconds> minimum_hold;  ///< lock_at_least_for
    std::optional<std::chrono::milliseconds> timeout;
    bool keep_alive = false;
    std::vector<std::string> command;
    std::string idempotency_key;  ///< empty: no idempotency key
    std::optional<std::chrono::milliseconds> claim_for;
    std::optional<std::chrono::milliseconds> wait;  ///< empty: no wait (one attempt)
};

/// Fills what the flags left open from `[shedlock]` and `[tasks.<task>]` of `options.config`
/// (run_config.cpp, in the config module: call it through config_module()).
run_plan with_config(run_plan plan, const run_options& options);

/// `shedlock run --help`'s footer: exit statuses, the command's environment, examples.
extern const char* const run_footer;

/// Runs the command under the lock; the process exit status. Throws configuration_error,
/// missing_option, or storage_error(missing_schema).
int run_command(const run_options& options);

}  // namespace shedlock::cli
