#pragma once
// Watchdog that extends a running task's lock every lock_at_most_for / 2.

#include <shedlock/metrics.hpp>
#include <shedlock/task_context.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace shedlock::detail {

class keep_alive {
public:
    /// `extensions` (may be null) counts each successful extension.
    keep_alive(task_context& context, std::chrono::milliseconds at_most, metric_counter* extensions = nullptr);
    ~keep_alive();  // stops and joins
    keep_alive(const keep_alive&) = delete;
    keep_alive& operator=(const keep_alive&) = delete;

private:
    void run(task_context& context, std::chrono::milliseconds at_most);

    metric_counter* extensions_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace shedlock::detail
