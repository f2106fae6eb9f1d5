#include "extension_pool.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace shedlock::detail {
namespace {

using steady = std::chrono::steady_clock;

class thread_pool final : public extension_pool {
public:
    thread_pool() = default;
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    void post(std::function<void()> job) override {
        std::lock_guard lock(mutex_);
        jobs_.push_back({steady::now(), std::move(job)});
        if (threads_.empty()) start_one();
        wake_.notify_one();
    }

    void grow_if_waiting(steady::duration patience) noexcept override {
        std::lock_guard lock(mutex_);
        if (jobs_.empty() || idle_ >= jobs_.size() || threads_.size() >= max_threads) return;
        if (steady::now() - jobs_.front().first < patience) return;
        try {
            threads_.emplace_back([this] { run(); });
        } catch (const std::system_error&) {
            // The threads there are will get to the job.
        }
    }

private:
    /// Under mutex_. A thread that cannot be started leaves the job to those that exist.
    void start_one() {
        try {
            threads_.emplace_back([this] { run(); });
        } catch (const std::system_error&) {
            if (threads_.empty()) {
                jobs_.pop_back();
                throw;
            }
        }
    }

    void run() {
        std::unique_lock lock(mutex_);
        while (true) {  // for the life of the process (the pool is never destroyed)
            ++idle_;
            wake_.wait(lock, [this] { return !jobs_.empty(); });
            --idle_;
            auto job = std::move(jobs_.front().second);
            jobs_.pop_front();
            lock.unlock();
            try {
                job();
            } catch (...) {
                // A job must not throw (repeating_timer's steps do not); the thread goes on.
            }
            job = nullptr;  // destroyed outside the lock
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::pair<steady::time_point, std::function<void()>>> jobs_;  // by queueing time
    std::vector<std::thread> threads_;
    std::size_t idle_ = 0;
};

}  // namespace

extension_pool& shared_extension_pool() {
    // Never destroyed: a timer of shared_timer_service() (a static created before it, so destroyed
    // after it) may still call grow_if_waiting() at exit. Its threads wait idle until the process ends.
    static auto* pool = new thread_pool;
    return *pool;
}

}  // namespace shedlock::detail
