#pragma once
/// \file
/// Heartbeat records: lock records that a process serving its status (shedlock::serve_status,
/// `shedlock daemon --http`) keeps renewed, so that other processes can tell that it stopped
/// reporting. Here: their names, which operator tools (`shedlock locks`) recognise.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace shedlock {

/// Heartbeat records are named "shedlock-heartbeat:<interval in ms>:<16 hex digits>" (the digits
/// hash the process, see process_of_owner(); the record's locked_by says which it is), so the
/// name fits a lock name (64 characters) whatever the host name.
inline constexpr std::string_view heartbeat_prefix = "shedlock-heartbeat:";
/// Their lease: a day, so a record outlives its process on every backend (Redis drops expired
/// keys) and readers judge it by whether it is still renewed, not by its expiry.
inline constexpr std::chrono::hours heartbeat_lease{24};
/// The longest interval (the shortest is 1 ms).
inline constexpr std::chrono::milliseconds max_heartbeat_every{std::chrono::hours{1}};

/// Throws configuration_error unless `every` is 0 (no heartbeat) or 1 ms to max_heartbeat_every,
/// naming the value and the range.
void validate_heartbeat_every(std::chrono::milliseconds every);

/// The record name of `process` (process_of_owner() form) beating every `every`.
std::string heartbeat_record_name(std::chrono::milliseconds every, std::string_view process);

/// The interval of heartbeat record `lock_name`; empty for any other name (a user's lock that
/// merely starts with the prefix included).
std::optional<std::chrono::milliseconds> heartbeat_interval(std::string_view lock_name);

}  // namespace shedlock
