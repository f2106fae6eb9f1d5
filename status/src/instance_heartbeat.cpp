#include "instance_heartbeat.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/lock_inspector.hpp>

namespace shedlock::detail {

instance_heartbeat::instance_heartbeat(lock_provider& provider, std::chrono::milliseconds every,
                                       std::function<void(const std::string&)> warn, timer_service& timers)
    : provider_(provider),
      every_(every),
      record_(heartbeat_lock_configuration(every)),
      warn_(std::move(warn)),
      beats_(timers, std::chrono::steady_clock::duration{0}, [this] { return std::optional{beat_on_time()}; }) {}

instance_heartbeat::~instance_heartbeat() {
    beats_.stop();  // waits for a beat under way; none comes after
    remove_own_record();
}

std::chrono::steady_clock::duration instance_heartbeat::beat_on_time() {
    const auto started = std::chrono::steady_clock::now();
    if (!pruned_) {
        pruned_ = true;
        next_beat_ = started;
        prune_expired_records();
    }
    beat();
    // At a fixed rate: a slow beat does not push the next ones back (readers allow three
    // intervals between beats, not three intervals plus the beats' own time).
    next_beat_ += every_;
    const auto now = std::chrono::steady_clock::now();
    if (next_beat_ < now) next_beat_ = now;  // beats missed while the backend hung are not caught up
    return next_beat_ - now;
}

void instance_heartbeat::beat() {
    try {
        if (held_) held_ = held_->extend(heartbeat_lease);  // empty when taken over meanwhile
        if (!held_) held_ = provider_.try_lock(record_);
        // Still empty: another process with the same record name beats (a digest collision):
        // the next beat tries again.
        if (failing_ && warn_) warn_("status server heartbeat: renewed again (" + record_.name() + ")");
        failing_ = false;
    } catch (const std::exception& e) {
        // Once per failing streak: other instances' status pages flag this one's locks meanwhile.
        if (!failing_ && warn_)
            warn_("status server heartbeat: cannot renew " + record_.name() + " every " + format_duration(every_) +
                  " (" + e.what() + "); other instances may flag this instance's locks as stale until it works again");
        failing_ = true;
    }
}

void instance_heartbeat::prune_expired_records() {
    try {
        auto& records_of = inspect(provider_);
        const auto records = records_of.list_locks();
        const auto expired = heartbeat_records_to_delete(records, records_of.lock_time_now());
        if (!expired.empty()) records_of.delete_records(expired);
    } catch (const std::exception&) {
        // A backend that cannot list or delete keeps its old records; they only take a row each.
    }
}

void instance_heartbeat::remove_own_record() noexcept {
    if (!held_) return;
    try {
        held_->unlock();  // first, so the handle has nothing left to release
        inspect(provider_).delete_records({record_.name()});
    } catch (const std::exception&) {
        // The backend is down: the record stays unrenewed, as after a crash, until pruned.
    }
    held_.reset();
}

}  // namespace shedlock::detail
