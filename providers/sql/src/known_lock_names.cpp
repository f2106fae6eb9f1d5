#include <shedlock/providers/sql/known_lock_names.hpp>

#include <algorithm>

namespace shedlock::providers::sql {

bool known_lock_names::trusted(const std::string& name, time_point now) const {
    if (ttl_.count() <= 0) return false;
    const std::lock_guard<std::mutex> guard(mutex_);
    const auto it = seen_.find(name);
    return it != seen_.end() && now >= it->second && now - it->second < ttl_;
}

void known_lock_names::record_answer(const std::string& name, bool plain_update, bool granted, time_point asked) {
    if (ttl_.count() <= 0 || (plain_update && !granted)) return;
    const std::lock_guard<std::mutex> guard(mutex_);
    if (seen_.size() >= capacity_ && seen_.find(name) == seen_.end()) make_room(asked);
    seen_[name] = asked;
}

// Not a clear of everything: with more live names than capacity_ (10,001 tasks a minute) every
// attempt would then run the full statement. Sightings past their TTL go first; then any, down to
// 90 % of capacity_, so the scan runs once per capacity_ / 10 new names and each name dropped
// costs one full statement on its next attempt.
void known_lock_names::make_room(time_point now) {
    std::erase_if(seen_, [&](const auto& entry) { return now < entry.second || now - entry.second >= ttl_; });
    const std::size_t keep = capacity_ - std::max<std::size_t>(capacity_ / 10, 1);
    for (auto it = seen_.begin(); seen_.size() > keep && it != seen_.end();) it = seen_.erase(it);
}

void known_lock_names::forget(const std::vector<std::string>& names) {
    const std::lock_guard<std::mutex> guard(mutex_);
    for (const auto& name : names) seen_.erase(name);
}

namespace {

struct registered_cache {
    std::string table;
    std::weak_ptr<known_lock_names> cache;
};

/// Every live cache of this process; entries of destroyed caches are pruned as new ones come.
struct cache_registry {
    std::mutex mutex;
    std::vector<registered_cache> caches;
};

cache_registry& registry() {
    static cache_registry r;
    return r;
}

}  // namespace

std::shared_ptr<known_lock_names> known_lock_names::make_registered(const std::string& table,
                                                                    std::chrono::milliseconds ttl) {
    auto cache = std::make_shared<known_lock_names>(ttl);
    auto& r = registry();
    const std::lock_guard<std::mutex> guard(r.mutex);
    std::erase_if(r.caches, [](const registered_cache& c) { return c.cache.expired(); });
    r.caches.push_back({table, cache});
    return cache;
}

void known_lock_names::forget_everywhere(const std::string& table, const std::vector<std::string>& names) {
    std::vector<std::shared_ptr<known_lock_names>> live;
    {
        auto& r = registry();
        const std::lock_guard<std::mutex> guard(r.mutex);
        for (const auto& c : r.caches)
            if (auto cache = c.cache.lock(); cache && c.table == table) live.push_back(std::move(cache));
    }
    for (const auto& cache : live) cache->forget(names);
}

}  // namespace shedlock::providers::sql
