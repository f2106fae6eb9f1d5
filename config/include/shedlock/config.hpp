#pragma once
/// \file
/// The shedlock configuration file (TOML): backend, defaults and tasks.
///
/// ```toml
/// [shedlock]
/// provider = "${SHEDLOCK_PROVIDER:sqlite:/var/lib/app/locks.db}"
/// instance = "web-1"                # default: <hostname>:<pid>
/// env = "prod"                      # rendered into lock-name templates as {env}
/// default_lock_at_most_for = "PT10M"
/// default_lock_at_least_for = "PT5S"
/// workers = 4
/// run_retention = 1000              # run records kept per task
/// lock_retention = "P1D"            # expired records of names rendered from {date}/{datetime}
/// heartbeat = "PT10S"               # daemon --http: renew this instance's heartbeat record (PT0.1S-PT1H; PT0S: off)
///
/// [tasks.nightly-report]
/// cron = "0 0 2 * * ?"
/// zone = "Europe/Berlin"
/// lock_at_most_for = "PT2H"
/// lock_name = "report:{date}"
/// keep_alive = true
/// wait_for_lock = "PT5M"           # wait this long for a held lock (run, daemon, scheduler)
/// idempotency_key = "report:{date}"  # claimed after the lock: a done day never runs again
/// claim_for = "PT3H"                # default: lock_at_most_for
/// command = ["/usr/local/bin/report", "--day", "{date}"]   # daemon only
/// timeout = "PT3H"
/// env = { REPORT_DIR = "/srv/reports" }
/// ```

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shedlock {

/// One `[tasks.<name>]` table. Unset keys are empty optionals: the code's or the global default applies.
struct task_config {
    std::string name;
    int line = 0;  ///< where the table starts, for messages
    std::optional<std::string> cron;
    std::optional<std::string> zone;
    std::optional<std::chrono::milliseconds> fixed_rate;
    std::optional<std::chrono::milliseconds> fixed_delay;
    std::optional<std::chrono::milliseconds> initial_delay;
    std::optional<std::chrono::milliseconds> misfire_grace;
    std::optional<std::chrono::milliseconds> lock_at_most_for;
    std::optional<std::chrono::milliseconds> lock_at_least_for;
    std::optional<std::string> lock_name;
    std::optional<bool> keep_alive;
    /// How long a firing (or `shedlock run`) waits for the lock held elsewhere; zero: no wait.
    std::optional<std::chrono::milliseconds> wait_for_lock;
    std::optional<std::string> idempotency_key;  ///< template, as lock_name (docs/idempotency.md)
    std::optional<std::chrono::milliseconds> claim_for;
    std::optional<bool> enabled;
    std::vector<std::string> command;  ///< daemon only
    std::optional<std::chrono::milliseconds> timeout;
    std::map<std::string, std::string> env;
};

/// The whole file.
struct shedlock_config {
    std::string file;
    std::string provider;
    std::string instance;
    std::string env;
    std::optional<std::chrono::milliseconds> default_lock_at_most_for;
    std::optional<std::chrono::milliseconds> default_lock_at_least_for;
    std::size_t workers = 4;
    std::size_t run_retention = 1000;
    /// scheduler_options::rendered_lock_retention (unset: its default, 1 day).
    std::optional<std::chrono::milliseconds> lock_retention;
    /// `daemon --http`: status_server_options::heartbeat_every (unset: its default, 10 s).
    std::optional<std::chrono::milliseconds> heartbeat;
    std::map<std::string, task_config> tasks;

    /// The task named `name`; configuration_error naming the file and the known tasks otherwise.
    const task_config& task(const std::string& name) const;
};

/// Reads and validates `path`. `${VAR}` and `${VAR:default}` in string values are replaced from the
/// environment. Throws configuration_error as `file:line: message` for a syntax error, an unknown
/// (misspelled) key, a wrong type, a bad duration, an unset `${VAR}` without default, or a task
/// with no or two schedules. Cron expressions and zones are checked by the scheduler at start().
shedlock_config load_config(const std::string& path);

/// The same for text already in memory (`source_name` appears in messages).
shedlock_config parse_config(const std::string& text, const std::string& source_name);

/// Replaces `${VAR}` / `${VAR:default}` in `text` from the environment; throws configuration_error
/// naming `where` and the variable when it is unset and has no default. With `show_text` false
/// (a value that may hold a password) no error repeats any of `text`.
std::string expand_placeholders(const std::string& text, const std::string& where, bool show_text = true);

}  // namespace shedlock
