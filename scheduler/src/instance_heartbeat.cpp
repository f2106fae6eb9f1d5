#include "instance_heartbeat.hpp"

#include <shedlock/owner_token.hpp>

#include <vector>

namespace shedlock::detail {

std::string heartbeat_instance(std::string_view lock_name) {
    if (lock_name.substr(0, heartbeat_prefix.size()) != heartbeat_prefix) return {};
    return std::string(lock_name.substr(heartbeat_prefix.size()));
}

std::string instance_of_owner(std::string_view locked_by) {
    const auto last = locked_by.rfind(':');
    return std::string(last == std::string_view::npos ? locked_by : locked_by.substr(0, last));
}

instance_heartbeat::instance_heartbeat(lock_provider& provider, std::chrono::milliseconds every)
    : provider_(provider), every_(every), name_(std::string(heartbeat_prefix) + instance_id()) {
    thread_ = std::thread([this] { run(); });
}

instance_heartbeat::~instance_heartbeat() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void instance_heartbeat::run() {
    prune_old_records();
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        beat();
        lock.lock();
        wake_.wait_for(lock, every_, [this] { return stopping_; });
    }
    lock.unlock();
    remove_own_record();
}

void instance_heartbeat::beat() {
    try {
        if (held_) held_ = held_->extend(3 * every_);  // empty when the lease ran out meanwhile
        if (!held_) held_ = provider_.try_lock({name_, 3 * every_});
        // Still empty: a record of an earlier process with this pid is live; it expires first.
    } catch (const std::exception&) {
        // The backend is down or slow: the next beat tries again; a record left to expire is what
        // the status pages of the other instances then show.
    }
}

void instance_heartbeat::prune_old_records() {
    try {
        const auto now = provider_.lock_time_now();
        std::vector<std::string> dead;
        for (const auto& r : provider_.list_locks())
            if (!heartbeat_instance(r.name).empty() && r.lock_until < now - std::chrono::hours{24})
                dead.push_back(r.name);
        if (!dead.empty()) provider_.delete_records(dead);
    } catch (const std::exception&) {
        // A backend that cannot list or delete keeps its old records; they only take a row each.
    }
}

void instance_heartbeat::remove_own_record() noexcept {
    if (!held_) return;
    try {
        held_->unlock();  // first, so the handle has nothing left to release
        provider_.delete_records({name_});
    } catch (const std::exception&) {
        // The backend is down: the record expires with its lease, as after a crash.
    }
    held_.reset();
}

}  // namespace shedlock::detail
