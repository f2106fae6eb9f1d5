#pragma once
/// \file
/// Reading and administering a backend's stored lock records, apart from locking itself.

#include <shedlock/time.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shedlock {

class lock_provider;

/// One stored lock record, for inspection (`shedlock locks`).
struct lock_record {
    std::string name;
    std::string locked_by;
    timestamp locked_at;
    timestamp lock_until;
    std::optional<std::int64_t> fencing_token;
    /// Why a stored value could not be read (empty when the record is fine). Such a record is
    /// listed with `locked_at` = epoch and `lock_until` = timestamp::max(): it counts as held,
    /// and force_release() can still free it.
    std::string unreadable;
};

/// One thing the backend's topology means for its locks (`shedlock doctor` prints each).
struct topology_note {
    std::string text;       ///< "pooler: PgBouncer detected ...", "2 streaming replicas, asynchronous ..."
    bool weakens = false;   ///< a setting that weakens a lock's guarantees (doctor warns)
};

/// What operators, diagnostics and housekeeping do with a backend's lock records: list them, read
/// the backend's clock, release or delete records. Kept apart from lock_provider so that a task
/// that only locks never sees operator actions, and so that a backend adds inspection as one
/// separate piece (see docs/providers.md). Reach it with inspect(provider).
///
/// Thread safety: as the lock_provider it belongs to (every backend: safe for concurrent use).
/// Lifetime: that of the provider it belongs to.
class lock_inspector {
public:
    virtual ~lock_inspector() = default;

    /// Every stored lock record. Throws unsupported_operation_error where a backend cannot list.
    virtual std::vector<lock_record> list_locks() = 0;

    /// Operator action (`shedlock locks release`): releases `name` whoever holds it. The release is
    /// owner-checked against the holder read in the same call, so a lock that somebody acquired in
    /// between is left alone. Returns false when no live record was found.
    bool force_release(const std::string& name);

    /// Deletes the records with these names, held or not, fencing counters included. Only for
    /// callers that own the names: the scheduler's instance heartbeat (its own record), a doctor
    /// probe, a benchmark's names, tests; never the locks of running tasks. It has production
    /// callers, which is why it stays here and not in a testing/ header.
    /// Default: unsupported_operation_error.
    virtual void delete_records(const std::vector<std::string>& names);

    /// Deletes each record of `names` whose `lock_until <= expired_by` (on lock_time_now()'s time
    /// base), fencing counter included; a record held or renewed meanwhile is left alone (one
    /// conditional statement per name, not a read then a delete). For names that are never
    /// locked again: the rendered names of lock-name templates whose time has passed (the
    /// scheduler's rendered_lock_retention). Returns how many were deleted. Default:
    /// unsupported_operation_error.
    virtual std::size_t delete_expired_records(const std::vector<std::string>& names, timestamp expired_by);

    /// The backend server's current time, for clock-offset checks (`shedlock doctor`); empty when
    /// the backend has no clock of its own (memory) or cannot report it.
    virtual std::optional<timestamp> server_time() { return std::nullopt; }

    /// The "now" the provider compares `lock_until` with when it acquires: the server's clock
    /// where the backend decides by it (Redis, SQL with use_db_time), else the provider's clock.
    /// Read it AFTER list_locks() to tell held from free records.
    virtual timestamp lock_time_now() = 0;

    /// The table the lock records live in ("ops.shedlock"), for operators' messages; empty for
    /// backends without tables (memory, Redis).
    virtual std::string record_table() const { return {}; }
    /// What stands between the provider and its data, and what that means for the locks: a
    /// pooler, the server's replication, a narrow fencing column (PostgreSQL). Asks the server;
    /// throws storage_error. Default: nothing to say.
    virtual std::vector<topology_note> topology() { return {}; }

protected:
    lock_inspector() = default;
    lock_inspector(const lock_inspector&) = delete;
    lock_inspector& operator=(const lock_inspector&) = delete;

private:
    /// Releases `live` (a record force_release found held at `now`), owner-checked against
    /// `live.locked_by` exactly as an unlock of its holder would be.
    virtual void do_force_release(const lock_record& live, timestamp now) = 0;
};

/// The inspector of `provider`: its lock_provider::inspector(), or unsupported_operation_error
/// naming the lack when the provider has none.
lock_inspector& inspect(lock_provider& provider);

}  // namespace shedlock
