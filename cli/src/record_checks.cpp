#include "record_checks.hpp"

#include "output.hpp"

namespace shedlock::cli {

std::string time_anomaly(const lock_record& record, timestamp now) {
    if (!record.unreadable.empty())
        return "the record cannot be read (" + record.unreadable + "); `shedlock locks release " + printable(record.name) +
               " --force` rewrites its lock_until";
    // No correct writer stores it: locked_at is the acquisition, lock_until never before it. Two
    // columns of one type swapped in a client's columns= show only here (the catalog cannot tell).
    if (record.locked_at > record.lock_until)
        return "locked_at is after lock_until by " + human_duration(record.locked_at - record.lock_until) +
               ", which no correct writer stores: a client maps locked_at and lock_until swapped (every client of "
               "one table must use the same columns= mapping), or a writer's clock stepped back while it held "
               "the lock";
    const auto ahead = record.locked_at - now;
    if (ahead <= future_locked_at_tolerance) return "";
    return "locked_at is " + human_duration(ahead) +
           " in the future: a writer's clock runs ahead, or it stores local time as UTC (a writer west of UTC "
           "then writes times hours in the past, and its locks look expired at once). Java ShedLock: "
           "JdbcLockProvider with Configuration.builder(ds).forceUtcTimeZone() or usingDbTime(); "
           "shedlock-cpp: use_db_time=true";
}

}  // namespace shedlock::cli
