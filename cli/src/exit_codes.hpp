#pragma once
// Exit statuses of the shedlock command (documented in docs/crontab.md and `shedlock run --help`).
// They follow sysexits.h so crontab wrappers and monitoring can tell the cases apart.

#include <shedlock/error.hpp>

#include <optional>

namespace shedlock::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 64;        ///< EX_USAGE: bad command line
inline constexpr int exit_unavailable = 69;  ///< EX_UNAVAILABLE: the lock backend could not be reached
inline constexpr int exit_internal = 70;     ///< EX_SOFTWARE: unexpected failure
inline constexpr int exit_exec_failed = 71;  ///< the command could not be started (not found, not executable)
inline constexpr int exit_locked = 75;       ///< EX_TEMPFAIL: another holder had the lock; the command did not run
inline constexpr int exit_config = 78;       ///< EX_CONFIG: bad configuration (duration, URI, name, table, config file)
/// run --once-key: the key was already done (completed before); the command did not run
inline constexpr int exit_done = 79;
/// run --once-key: the command exited 0 but the run was not recorded with its key: the key could
/// not be marked done even after a retry on a new connection (it stays running until --claim-for
/// has passed), or the claim was no longer this run's (reset, deleted, lost by the store, or
/// expired and taken over). Either way the work may run again (a failed command keeps its status)
inline constexpr int exit_unrecorded = 80;
inline constexpr int exit_timeout = 124;     ///< the command ran past --timeout and was stopped (as GNU timeout)
inline constexpr int exit_signal_base = 128; ///< the command was killed by signal N: 128 + N

/// Whether a storage failure is the setup's, which no retry mends: a missing table, or a setup
/// the backend refuses (misconfigured: a pooler refusing libpq's options under pooler=none, a
/// DateStyle it cannot read, a token column too narrow). Everything else, the catch-all `other` included (a full disk, a read-only
/// MariaDB during a failover), stays an outage: exit 69, which crontab wrappers retry.
inline bool storage_failure_is_config(std::optional<storage_category> category) {
    return category == storage_category::missing_schema || category == storage_category::misconfigured;
}

/// The exit status of a storage failure: exit_config or exit_unavailable (by the rule above).
inline int exit_for_storage(std::optional<storage_category> category) {
    return storage_failure_is_config(category) ? exit_config : exit_unavailable;
}

}  // namespace shedlock::cli
