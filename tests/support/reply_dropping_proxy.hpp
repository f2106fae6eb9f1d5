#pragma once
// A loopback TCP proxy to a real server that can lose one reply: the request that carries a
// marker reaches the server (and is applied there), then the server's answer is dropped and the
// client's connection closed, as a network fault between the two would.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::test {

/// Listens on 127.0.0.1 (an ephemeral port) and relays every connection to 127.0.0.1:upstream,
/// each on a thread of its own. Stops and joins when destroyed.
class reply_dropping_proxy {
public:
    explicit reply_dropping_proxy(std::uint16_t upstream_port);
    ~reply_dropping_proxy();
    reply_dropping_proxy(const reply_dropping_proxy&) = delete;
    reply_dropping_proxy& operator=(const reply_dropping_proxy&) = delete;

    std::uint16_t port() const noexcept { return port_; }

    /// The next client bytes containing `marker` go to the server; the server's reply to them is
    /// dropped and that connection closed on both sides. Once only.
    void arm(const std::string& marker);

    /// True once an armed marker was seen and its reply dropped.
    bool fired() const noexcept { return fired_.load(); }

private:
    void serve();
    void relay(int client, int server);
    /// True when `chunk` holds the armed marker (which is then disarmed).
    bool takes_marker(const std::string& chunk);

    std::uint16_t upstream_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> fired_{false};
    std::mutex mutex_;
    std::string marker_;
    std::vector<std::thread> relays_;
    std::thread thread_;
};

}  // namespace shedlock::test
