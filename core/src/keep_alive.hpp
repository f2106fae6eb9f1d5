#pragma once
// Watchdog that extends a running task's lock every lock_at_most_for / 2.

#include <shedlock/task_context.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace shedlock::detail {

class keep_alive {
public:
    keep_alive(task_context& context, std::chrono::milliseconds at_most);
    ~keep_alive();  // stops and joins
    keep_alive(const keep_alive&) = delete;
    keep_alive& operator=(const keep_alive&) = delete;

private:
    void run(task_context& context, std::chrono::milliseconds at_most);

    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace shedlock::detail
