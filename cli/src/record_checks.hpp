#pragma once
// Sanity of stored lock records that `locks` and `doctor` both report.

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <string>

namespace shedlock::cli {

/// How far ahead of the backend's "now" a locked_at may be before it is flagged: more than any
/// NTP-kept clock drifts, far less than a time-zone offset.
inline constexpr std::chrono::minutes future_locked_at_tolerance{1};

/// Empty when the record's times are plausible at `now`; otherwise what is wrong and the fix. A
/// locked_at in the future means a writer's clock runs ahead, or a writer stores local time as
/// if it were UTC (Java ShedLock's JdbcLockProvider in a non-UTC JVM without forceUtcTimeZone()):
/// such writers break mutual exclusion.
std::string time_anomaly(const lock_record& record, timestamp now);

}  // namespace shedlock::cli
