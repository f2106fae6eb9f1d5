#include "record_checks.hpp"

#include "output.hpp"

namespace shedlock::cli {

std::string time_anomaly(const lock_record& record, timestamp now) {
    if (!record.unreadable.empty())
        return "the record cannot be read (" + record.unreadable + "); `shedlock locks release " + record.name +
               " --force` rewrites its lock_until";
    const auto ahead = record.locked_at - now;
    if (ahead <= future_locked_at_tolerance) return "";
    return "locked_at is " + human_duration(ahead) +
           " in the future: a writer's clock runs ahead, or it stores local time as UTC (a writer west of UTC "
           "then writes times hours in the past, and its locks look expired at once). Java ShedLock: "
           "JdbcLockProvider with Configuration.builder(ds).forceUtcTimeZone() or usingDbTime(); "
           "shedlock-cpp: use_db_time=true";
}

}  // namespace shedlock::cli
