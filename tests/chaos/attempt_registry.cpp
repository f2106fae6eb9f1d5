#include "attempt_registry.hpp"

#include <unistd.h>

#include <vector>

namespace shedlock::chaos {

void attempt_registry::add(const attempt_plan& plan, pid_t cli, std::int64_t spawn_us) {
    std::lock_guard lock(mutex_);
    running_[plan.id] = running_attempt{plan, cli, spawn_us, {}, -1};
}

attempt_faults attempt_registry::finish(std::int64_t id) {
    std::lock_guard lock(mutex_);
    const auto it = running_.find(id);
    if (it == running_.end()) return {};
    const attempt_faults faults = it->second.faults;
    if (it->second.stopped_command_pidfd >= 0) ::close(it->second.stopped_command_pidfd);
    running_.erase(it);
    return faults;
}

bool attempt_registry::with_random(std::mt19937_64& rng, const predicate& pred, const action& act) {
    std::lock_guard lock(mutex_);
    std::vector<running_attempt*> candidates;
    for (auto& [id, attempt] : running_)
        if (pred(attempt)) candidates.push_back(&attempt);
    if (candidates.empty()) return false;
    act(*candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng)]);
    return true;
}

bool attempt_registry::with_attempt(std::int64_t id, const action& act) {
    std::lock_guard lock(mutex_);
    const auto it = running_.find(id);
    if (it == running_.end()) return false;
    act(it->second);
    return true;
}

void attempt_registry::for_each(const action& act) {
    std::lock_guard lock(mutex_);
    for (auto& [id, attempt] : running_) act(attempt);
}

}  // namespace shedlock::chaos
