#pragma once
// A loopback TCP listener that plays a scripted server, for what the real test servers cannot
// show: a database that offers no TLS (or something in between that strips it).

#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace shedlock::test {

/// Accepts connections on 127.0.0.1 (an ephemeral port) and runs `session(fd)` for each, one
/// at a time, on a thread of its own; the descriptor is closed after it. Stops and joins when
/// destroyed.
class fake_server {
public:
    explicit fake_server(std::function<void(int fd)> session);
    ~fake_server();
    fake_server(const fake_server&) = delete;
    fake_server& operator=(const fake_server&) = delete;

    std::uint16_t port() const noexcept { return port_; }

private:
    void serve();

    std::function<void(int)> session_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::thread thread_;
};

/// A listening socket on 127.0.0.1 at an ephemeral port (written to `port`); throws naming `who`.
int listen_on_loopback(std::uint16_t& port, const char* who);

/// The next connection accepted on `listener`; -1 once the listener was shut down.
int accept_next(int listener);

/// Reads exactly `n` bytes; "" when the peer closed first.
std::string read_exactly(int fd, std::size_t n);

/// Writes all of `bytes`; false when the peer is gone.
bool write_all(int fd, const std::string& bytes);

}  // namespace shedlock::test
