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
    if (seen_.size() >= capacity_ && seen_.find(name) == seen_.end()) seen_.clear();
    seen_[name] = asked;
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
