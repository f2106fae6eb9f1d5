#include "socket_deadline.hpp"

#include <sys/socket.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace shedlock::providers::detail {
namespace {

using steady = std::chrono::steady_clock;

/// The armed deadlines and the thread that enforces them. Never destroyed (a detached thread
/// may still wait on it while the process exits).
class deadline_watch {
public:
    static deadline_watch& instance() {
        static auto* watch = new deadline_watch;
        return *watch;
    }

    std::uint64_t arm(int fd, steady::time_point at) {
        std::lock_guard lock(mutex_);
        const auto id = ++last_id_;
        armed_.emplace(id, entry{fd, at});
        changed_.notify_one();
        return id;
    }
    void disarm(std::uint64_t id) {
        std::lock_guard lock(mutex_);
        armed_.erase(id);
        expired_.erase(id);
    }
    bool expired(std::uint64_t id) {
        std::lock_guard lock(mutex_);
        return expired_.count(id) != 0;
    }

private:
    struct entry {
        int fd;
        steady::time_point at;
    };

    deadline_watch() { std::thread([this] { run(); }).detach(); }

    void run() {
        std::unique_lock lock(mutex_);
        for (;;) {
            const auto next = earliest();
            if (next == steady::time_point::max()) changed_.wait(lock);
            else changed_.wait_until(lock, next);
            const auto now = steady::now();
            for (auto it = armed_.begin(); it != armed_.end();) {
                if (it->second.at > now) {
                    ++it;
                    continue;
                }
                ::shutdown(it->second.fd, SHUT_RDWR);  // under the lock: the owner cannot close it meanwhile
                expired_.insert(it->first);
                it = armed_.erase(it);
            }
        }
    }
    steady::time_point earliest() const {
        auto at = steady::time_point::max();
        for (const auto& [id, e] : armed_) at = std::min(at, e.at);
        return at;
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::uint64_t, entry> armed_;
    std::set<std::uint64_t> expired_;  // until disarmed
    std::uint64_t last_id_ = 0;
};

}  // namespace

socket_deadline::socket_deadline(int fd, std::chrono::steady_clock::duration after)
    : id_(deadline_watch::instance().arm(fd, steady::now() + after)) {}

socket_deadline::~socket_deadline() { deadline_watch::instance().disarm(id_); }

bool socket_deadline::expired() const { return deadline_watch::instance().expired(id_); }

}  // namespace shedlock::providers::detail
