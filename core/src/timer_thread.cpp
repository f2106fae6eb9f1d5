// shared_timer_service(): the process's one timer thread, for every keep-alive of an executor used
// without the scheduler.
#include <shedlock/timer_service.hpp>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace shedlock {
namespace {

using steady = std::chrono::steady_clock;

/// Pending calls by due time (then by id: first come, first called); the thread starts with the
/// first call_after() and is joined by the destructor (at exit).
class timer_thread final : public timer_service {
public:
    timer_thread() = default;
    timer_thread(const timer_thread&) = delete;
    timer_thread& operator=(const timer_thread&) = delete;
    ~timer_thread() override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    timer_id call_after(steady::duration delay, std::function<void()> callback) override {
        std::lock_guard lock(mutex_);
        const auto id = ++last_id_;
        const auto at = steady::now() + delay;
        due_[id] = at;
        const bool earliest = queue_.empty() || at < queue_.begin()->first.first;
        queue_.emplace(std::pair{at, id}, std::move(callback));
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
        else if (earliest) wake_.notify_all();
        return id;
    }

    void cancel(timer_id id) noexcept override {
        std::lock_guard lock(mutex_);
        const auto found = due_.find(id);
        if (found == due_.end()) return;
        queue_.erase(std::pair{found->second, id});
        due_.erase(found);
    }

private:
    void run() {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            if (queue_.empty()) {
                wake_.wait(lock);
                continue;
            }
            const auto at = queue_.begin()->first.first;
            if (steady::now() < at) {
                wake_.wait_until(lock, at);
                continue;
            }
            auto call = queue_.extract(queue_.begin());
            due_.erase(call.key().second);
            lock.unlock();  // the callback may call call_after() or cancel()
            try {
                call.mapped()();
            } catch (...) {
                // A callback must not throw (timer_service's contract); the thread goes on.
            }
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    timer_id last_id_ = 0;
    std::map<std::pair<steady::time_point, timer_id>, std::function<void()>> queue_;
    std::map<timer_id, steady::time_point> due_;  // the queue key of each pending id
    std::thread thread_;
};

}  // namespace

timer_service& shared_timer_service() {
    static timer_thread service;
    return service;
}

}  // namespace shedlock
