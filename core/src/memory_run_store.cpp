#include <shedlock/memory_run_store.hpp>

#include <algorithm>

namespace shedlock {

void memory_run_store::ring::push(const run_record& r, std::size_t capacity) {
    if (capacity == 0) return;
    if (slots.size() < capacity) {  // not full: oldest is 0, the newest goes at the end
        // The first records come one firing apart: growing 1, 2, 4 would copy and allocate
        // under the store's mutex in each of the first bursts.
        if (slots.empty()) slots.reserve(std::min<std::size_t>(capacity, 8));
        slots.push_back(r);
        return;
    }
    slots[oldest] = r;
    oldest = (oldest + 1) % slots.size();
}

void memory_run_store::ring::linearize() {
    std::rotate(slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(oldest), slots.end());
    oldest = 0;
}

void memory_run_store::append(const run_record& record) {
    std::lock_guard lock(mutex_);
    auto it = rings_.find(record.task);
    if (it == rings_.end()) it = rings_.try_emplace(record.task).first;
    auto& r = it->second;
    r.push(record, retention_.max_per_task);
    if (retention_.max_age) {  // as the SQL stores: finished before now - max_age, wherever in the ring
        const auto cutoff = system_clock::instance().now() - *retention_.max_age;
        r.linearize();
        std::erase_if(r.slots, [&](const run_record& x) { return x.finished_at < cutoff; });
    }
}

std::vector<run_record> memory_run_store::last_runs(const std::string& task, std::size_t n) {
    return newest_matching(task, n, [](const run_record&) { return true; });
}

std::vector<run_record> memory_run_store::last_runs_of_instance(const std::string& task, const std::string& instance,
                                                                std::size_t n) {
    return newest_matching(task, n, [&](const run_record& r) { return r.instance == instance; });
}

std::vector<run_record> memory_run_store::newest_matching(const std::string& task, std::size_t n,
                                                          const std::function<bool(const run_record&)>& wanted) {
    std::lock_guard lock(mutex_);
    std::vector<run_record> out;
    const auto it = rings_.find(task);
    if (it == rings_.end()) return out;
    const auto& r = it->second;
    for (std::size_t i = r.size(); i > 0 && out.size() < n; --i)
        if (wanted(r.at(i - 1))) out.push_back(r.at(i - 1));
    return out;
}

std::vector<std::string> memory_run_store::tasks() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, r] : rings_)
        if (r.size() > 0) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<run_record> memory_run_store::all() {
    std::lock_guard lock(mutex_);
    std::vector<const std::pair<const std::string, ring>*> by_name;
    for (const auto& entry : rings_) by_name.push_back(&entry);
    std::sort(by_name.begin(), by_name.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    std::vector<run_record> out;
    for (const auto* entry : by_name)
        for (std::size_t i = 0; i < entry->second.size(); ++i) out.push_back(entry->second.at(i));
    return out;
}

}  // namespace shedlock
