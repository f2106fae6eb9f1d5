#pragma once
/// \file
/// Heartbeat records: lock records that a process serving its status (shedlock::serve_status,
/// `shedlock daemon --http`) keeps renewed, so that other processes can tell that it stopped
/// reporting. Here: how they are named, written and recognised, and when they may be deleted.

#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock {

/// Heartbeat records are named "shedlock-heartbeat:<interval in ms>:<16 hex digits>", the digits
/// a digest of the process that holds the record (process_of_owner() of its locked_by), so the
/// name fits a lock name (64 characters) whatever the host name. The prefix is reserved: a
/// lock_configuration with it (in any ASCII case) is a configuration_error.
inline constexpr std::string_view heartbeat_prefix = "shedlock-heartbeat:";
/// Their lease: the longest lease any lock may have. A record must outlive every lock its
/// process may still hold after its last beat, on every backend (Redis drops expired keys):
/// without it, a dead holder's lock would read like the lock of a process that never served
/// its status. Readers judge a record by whether it is still renewed, never by its expiry.
inline constexpr std::chrono::milliseconds heartbeat_lease = max_lock_at_most_for;
/// A record without a beat for this long whose process holds no live lock is deleted by the
/// start-up housekeeping of the next status server (heartbeat_records_to_delete).
inline constexpr std::chrono::hours heartbeat_retention{24};
/// The longest interval.
inline constexpr std::chrono::milliseconds max_heartbeat_every{std::chrono::hours{1}};
/// The shortest interval a status server may be configured with: every beat is a write to the
/// backend (1 ms was accepted: a thousand writes a second). Records of other intervals are still
/// read (read_heartbeat_record).
inline constexpr std::chrono::milliseconds min_heartbeat_every{100};

/// Throws configuration_error unless `every` is 0 (no heartbeat) or min_heartbeat_every to
/// max_heartbeat_every, naming the value and the range.
void validate_heartbeat_every(std::chrono::milliseconds every);

/// The record name of `process` (process_of_owner() form) beating every `every`.
std::string heartbeat_record_name(std::chrono::milliseconds every, std::string_view process);

/// The lock policy of this process's heartbeat record beating every `every` (min_heartbeat_every to
/// max_heartbeat_every, else configuration_error): the only way to a lock_configuration with
/// the reserved prefix, and only for the calling process's own record.
lock_configuration heartbeat_lock_configuration(std::chrono::milliseconds every);

/// What a heartbeat record says: who beats, and how often.
struct heartbeat_beat {
    std::string process;              ///< process_of_owner() of the holder
    std::chrono::milliseconds every;  ///< the interval in its name
    timestamp last_beat;              ///< lock_until less the lease, in the writer's time
};

/// `record` read as a heartbeat record; empty unless its name has the heartbeat form AND its
/// digest is that of the process holding it, and it is readable. The name alone is not enough:
/// another writer's row may carry such a name (one written before the prefix was reserved, or
/// by a client that does not check it); its holder is a process whose digest differs.
std::optional<heartbeat_beat> read_heartbeat_record(const lock_record& record);

/// The heartbeat records among `records` (listed at `now`) that may be deleted: silent for more
/// than heartbeat_retention, of a process that holds no live lock among `records` (a dead
/// holder's record is the evidence that its locks are stale, kept as long as they are held).
std::vector<std::string> heartbeat_records_to_delete(const std::vector<lock_record>& records, timestamp now);

}  // namespace shedlock
