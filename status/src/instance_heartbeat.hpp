#pragma once
// The heartbeat of a process that serves its status: a lock record of its own, renewed every
// interval. A task lock whose holder's heartbeat stopped was taken by a process that stopped
// reporting (killed, frozen, cut off): the status page flags it as stale long before its
// lock_at_most_for runs out (heartbeat_watch.hpp judges the records; shedlock/heartbeat_record.hpp
// names them).

#include <shedlock/heartbeat_record.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_handle.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/detail/repeating_timer.hpp>
#include <shedlock/timer_service.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace shedlock::detail {

/// Holds this process's heartbeat record on `provider`, renewed every `every` (0 < every <=
/// max_heartbeat_every, else configuration_error) from a timer on `timers` (the status server's
/// backend thread: a beat is a backend call, which must not hold up the timers of firings or the
/// parsing of requests; by default the process's shared timer thread); a backend that is down
/// only skips beats (`warn` hears when beats start failing and when they work again). Deletes the
/// record when destroyed (a clean exit is not a stop in reporting). At the start, deletes the
/// heartbeat records of dead processes that hold no lock any more (heartbeat_records_to_delete):
/// a dead holder's record stays as long as its locks, the evidence that they are stale.
class instance_heartbeat {
public:
    instance_heartbeat(lock_provider& provider, std::chrono::milliseconds every,
                       std::function<void(const std::string&)> warn, timer_service& timers = shared_timer_service());
    instance_heartbeat(const instance_heartbeat&) = delete;
    instance_heartbeat& operator=(const instance_heartbeat&) = delete;
    /// Stops the beats (waiting for one under way), then deletes the record.
    ~instance_heartbeat();

private:
    /// The first beat also prunes; returns the delay to the next beat (at a fixed rate).
    std::chrono::steady_clock::duration beat_on_time();
    void beat();
    void prune_expired_records();
    void remove_own_record() noexcept;

    lock_provider& provider_;
    const std::chrono::milliseconds every_;
    const lock_configuration record_;  // validated before the first beat is armed
    const std::function<void(const std::string&)> warn_;
    // Touched by the beats (one at a time), then by the destructor once they stopped.
    std::optional<lock_handle> held_;
    bool failing_ = false;
    bool pruned_ = false;
    std::chrono::steady_clock::time_point next_beat_{};
    repeating_timer beats_;  // last: stopped first, before the members the beats use go
};

}  // namespace shedlock::detail
