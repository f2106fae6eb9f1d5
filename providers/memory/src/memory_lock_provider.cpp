#include <shedlock/providers/memory_lock_provider.hpp>

#include <algorithm>

namespace shedlock::providers {

std::optional<lease> memory_lock_provider::do_try_lock(const lock_configuration& config, const std::string& owner) {
    std::lock_guard guard(mutex_);
    const timestamp now = clock().now();
    auto it = records_.find(config.name());  // a known lock builds no record to throw away
    if (it == records_.end()) it = records_.try_emplace(config.name(), lock_record{config.name(), "", now, now, 0, ""}).first;
    else if (it->second.lock_until > now) return std::nullopt;
    lock_record& record = it->second;
    record.locked_by = owner;
    record.locked_at = now;
    record.lock_until = now + config.lock_at_most_for();
    record.fencing_token = *record.fencing_token + 1;
    return lease{config.name(), owner, now, record.lock_until, now + config.lock_at_least_for(), record.fencing_token};
}

void memory_lock_provider::do_unlock(const lease& held) {
    std::lock_guard guard(mutex_);
    auto it = records_.find(held.name);
    const timestamp now = clock().now();
    // Only a live lease: an expired or force-released lock stays free (as on every backend).
    if (it == records_.end() || it->second.locked_by != held.owner || it->second.lock_until <= now) return;
    const timestamp released_until = now + remaining_minimum_hold(held);
    it->second.lock_until =
        minimum_hold_outlasts_lease(held) ? released_until : std::min(it->second.lock_until, released_until);
}

std::optional<lease> memory_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                     std::chrono::milliseconds minimum_hold) {
    std::lock_guard guard(mutex_);
    const timestamp now = clock().now();
    auto it = records_.find(held.name);
    if (it == records_.end() || it->second.locked_by != held.owner || it->second.lock_until <= now)
        return std::nullopt;
    it->second.lock_until = now + at_most;
    lease extended = held;
    extended.lock_until = it->second.lock_until;
    extended.minimum_hold_until = now + minimum_hold;
    return extended;
}

void memory_lock_provider::delete_records(const std::vector<std::string>& names) {
    std::lock_guard guard(mutex_);
    for (const auto& name : names) records_.erase(name);
}

std::size_t memory_lock_provider::delete_expired_records(const std::vector<std::string>& names, timestamp expired_by) {
    std::lock_guard guard(mutex_);
    std::size_t deleted = 0;
    for (const auto& name : names) {
        const auto it = records_.find(name);
        if (it != records_.end() && it->second.lock_until <= expired_by) {
            records_.erase(it);
            ++deleted;
        }
    }
    return deleted;
}

std::vector<lock_record> memory_lock_provider::list_locks() {
    std::lock_guard guard(mutex_);
    std::vector<lock_record> out;
    out.reserve(records_.size());
    for (const auto& [name, record] : records_) out.push_back(record);
    std::sort(out.begin(), out.end(), [](const lock_record& a, const lock_record& b) { return a.name < b.name; });
    return out;
}

}  // namespace shedlock::providers
