#pragma once
// Judges the heartbeat records (instance_heartbeat.hpp) a status server lists: which processes
// stopped reporting.

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace shedlock::detail {

/// A process that beats (or beat): whether it stopped, and for how long it has been silent.
struct process_heartbeat {
    bool stopped = false;
    std::chrono::milliseconds silent{0};
};

/// Remembers, across the listings of one status server, when each heartbeat record's lock_until
/// last moved by a beat, on this server's steady clock: a record that has not moved for three of
/// its intervals belongs to a process that stopped reporting, whatever the writers' clocks say.
/// A record seen for the first time starts with the silence its own time shows (its last beat,
/// lock_until minus the lease, against `now`), less a minute allowed for clock skew between
/// hosts. Thread safety: observe() may be called from any thread.
class heartbeat_watch {
public:
    static constexpr std::chrono::minutes skew_allowance{1};

    /// Reads the heartbeat records among `records` (listed at `now`, the backend's time) and
    /// returns them by process (process_of_owner of their holder).
    std::map<std::string, process_heartbeat> observe(const std::vector<lock_record>& records, timestamp now);

private:
    struct sighting {
        timestamp lock_until;
        std::chrono::steady_clock::time_point since;  // when this lock_until was first seen
    };
    std::mutex mutex_;
    std::map<std::string, sighting> seen_;  // by record name
};

}  // namespace shedlock::detail
