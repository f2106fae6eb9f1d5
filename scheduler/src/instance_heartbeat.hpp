#pragma once
// The heartbeat of an instance that serves its status: a lock record of its own, named after the
// instance and extended every interval. A task lock whose holder's heartbeat record has expired
// was taken by an instance that stopped reporting (killed, frozen, cut off): the status page
// flags it as stale long before its lock_at_most_for runs out.

#include <shedlock/lock_handle.hpp>
#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace shedlock::detail {

/// "shedlock-heartbeat:" + instance: the heartbeat records' names.
inline constexpr std::string_view heartbeat_prefix = "shedlock-heartbeat:";

/// The instance (`host:pid`) whose heartbeat record `lock_name` is; empty for other locks.
std::string heartbeat_instance(std::string_view lock_name);

/// The instance (`host:pid`) of an owner token (`host:pid:random`): its text before the last ':'.
std::string instance_of_owner(std::string_view locked_by);

/// Holds this instance's heartbeat record on `provider`, with a lease of three intervals,
/// extended every interval on a thread of its own (a backend that is down only skips beats);
/// deletes the record when destroyed (a clean exit is not a stop in reporting). At the start,
/// deletes the heartbeat records that expired more than a day ago (instances that died: their
/// locks have expired by then; this keeps the table from growing with every crash).
class instance_heartbeat {
public:
    instance_heartbeat(lock_provider& provider, std::chrono::milliseconds every);
    instance_heartbeat(const instance_heartbeat&) = delete;
    instance_heartbeat& operator=(const instance_heartbeat&) = delete;
    ~instance_heartbeat();

private:
    void run();
    void beat();
    void prune_old_records();
    void remove_own_record() noexcept;

    lock_provider& provider_;
    const std::chrono::milliseconds every_;
    const std::string name_;
    std::optional<lock_handle> held_;  // the heartbeat thread only
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace shedlock::detail
