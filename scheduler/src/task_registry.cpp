#include <shedlock/task_registry.hpp>

#include <cstdio>

namespace shedlock {

void task_registry::add(task_definition task) {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
}

std::vector<task_definition> task_registry::tasks() const {
    std::lock_guard lock(mutex_);
    return tasks_;
}

task_definition* task_registry::find(std::string_view name) {
    std::lock_guard lock(mutex_);
    for (auto& t : tasks_)
        if (t.name == name) return &t;
    return nullptr;
}

std::size_t task_registry::size() const {
    std::lock_guard lock(mutex_);
    return tasks_.size();
}

task_registry& global_task_registry() {
    static task_registry registry;
    return registry;
}

bool detail::register_scheduled(task_definition task) noexcept {
    try {
        global_task_registry().add(std::move(task));
        return true;
    } catch (const std::exception& e) {
        // Out of memory at static-init time; nothing sensible to throw to.
        std::fprintf(stderr, "shedlock: could not register task: %s\n", e.what());
        return false;
    }
}

}  // namespace shedlock
