#include "keep_alive.hpp"

namespace shedlock::detail {

keep_alive::keep_alive(task_context& context, std::chrono::milliseconds at_most, metric_counter* extensions)
    : extensions_(extensions), thread_([this, &context, at_most] { run(context, at_most); }) {}

keep_alive::~keep_alive() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void keep_alive::run(task_context& context, std::chrono::milliseconds at_most) {
    // Extending at half the lease leaves the other half as margin for a slow backend call.
    const auto interval = std::max(at_most / 2, std::chrono::milliseconds{1});
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
        lock.unlock();
        const bool extended = context.extend(at_most);
        lock.lock();
        if (!extended) return;  // extend() marked the context lock_lost and cancelled
        if (extensions_) extensions_->inc();
    }
}

}  // namespace shedlock::detail
