#pragma once
// A loopback TCP proxy between the workers' `shedlock run` and a database server, through which
// the fault injector delays, stalls or resets the traffic. It stands for the network: the
// server itself is untouched.

#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::chaos {

/// Listens on 127.0.0.1 (a free port) and forwards each connection to upstream_port.
///
/// Faults (any thread may set them; the proxy thread applies them within ~10 ms):
/// - latency: every chunk is delivered this long after it arrived, in both directions;
/// - black hole: nothing is read, written or accepted (bytes already in flight wait, as TCP
///   retransmission would; they flow again when the black hole ends);
/// - reset: every open connection is aborted with RST on both sides (an instant fault).
/// A connection whose server refuses (server down) is reset at once.
class tcp_proxy {
public:
    explicit tcp_proxy(int upstream_port);
    ~tcp_proxy();
    tcp_proxy(const tcp_proxy&) = delete;
    tcp_proxy& operator=(const tcp_proxy&) = delete;

    int port() const noexcept { return port_; }
    void set_latency(std::chrono::milliseconds latency) { latency_us_ = latency.count() * 1000; }
    void set_black_hole(bool on) { black_hole_ = on; }
    void reset_all() { reset_requested_ = true; }
    /// Back to plain forwarding.
    void heal() {
        set_latency(std::chrono::milliseconds{0});
        set_black_hole(false);
    }
    /// Connections forwarded so far (a proxy nobody used is a setup error worth reporting).
    std::int64_t connections() const noexcept { return accepted_; }

private:
    struct state;
    void run();
    /// Polls every socket (at most one tick, less when a delayed chunk falls due).
    std::vector<pollfd> poll_set(state& s) const;
    void accept_one(state& s);
    /// Moves what poll reported; drops finished links.
    void pump(state& s, const std::vector<pollfd>& fds, std::int64_t now);

    int upstream_port_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<std::int64_t> latency_us_{0};
    std::atomic<bool> black_hole_{false};
    std::atomic<bool> reset_requested_{false};
    std::atomic<bool> stop_{false};
    std::atomic<std::int64_t> accepted_{0};
    std::thread thread_;
};

}  // namespace shedlock::chaos
