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

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace shedlock::detail {

/// Holds this process's heartbeat record on `provider`, renewed every `every` (0 < every <=
/// max_heartbeat_every, else configuration_error) on a thread of its own; a backend that is down
/// only skips beats (`warn` hears when beats start failing and when they work again). Deletes the
/// record when destroyed (a clean exit is not a stop in reporting). At the start, deletes the
/// heartbeat records of dead processes that hold no lock any more (heartbeat_records_to_delete):
/// a dead holder's record stays as long as its locks, the evidence that they are stale.
class instance_heartbeat {
public:
    instance_heartbeat(lock_provider& provider, std::chrono::milliseconds every,
                       std::function<void(const std::string&)> warn);
    instance_heartbeat(const instance_heartbeat&) = delete;
    instance_heartbeat& operator=(const instance_heartbeat&) = delete;
    ~instance_heartbeat();

private:
    void run();
    void beat();
    void prune_expired_records();
    void remove_own_record() noexcept;

    lock_provider& provider_;
    const std::chrono::milliseconds every_;
    const lock_configuration record_;  // validated before the thread starts
    const std::function<void(const std::string&)> warn_;
    std::optional<lock_handle> held_;  // the heartbeat thread only
    bool failing_ = false;             // the heartbeat thread only
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace shedlock::detail
