#include <shedlock/memory_run_store.hpp>

namespace shedlock {

void memory_run_store::append(const run_record& record) {
    std::lock_guard lock(mutex_);
    auto& ring = rings_[record.task];
    ring.push_back(record);
    while (ring.size() > retention_.max_per_task) ring.pop_front();
    if (retention_.max_age) {  // as the SQL stores: finished before now - max_age, wherever in the ring
        const auto cutoff = system_clock::instance().now() - *retention_.max_age;
        std::erase_if(ring, [&](const run_record& r) { return r.finished_at < cutoff; });
    }
}

std::vector<run_record> memory_run_store::last_runs(const std::string& task, std::size_t n) {
    std::lock_guard lock(mutex_);
    std::vector<run_record> out;
    const auto it = rings_.find(task);
    if (it == rings_.end()) return out;
    for (auto r = it->second.rbegin(); r != it->second.rend() && out.size() < n; ++r) out.push_back(*r);
    return out;
}

std::vector<std::string> memory_run_store::tasks() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, ring] : rings_)
        if (!ring.empty()) names.push_back(name);
    return names;
}

std::vector<run_record> memory_run_store::all() {
    std::lock_guard lock(mutex_);
    std::vector<run_record> out;
    for (const auto& [name, ring] : rings_) out.insert(out.end(), ring.begin(), ring.end());
    return out;
}

}  // namespace shedlock
