#pragma once
// One proxied connection of tcp_proxy: two sockets and, per direction, the bytes read but not
// yet delivered, each with the time it may be delivered (for the latency fault).

#include <cstdint>
#include <deque>
#include <string>

namespace shedlock::chaos {

struct proxy_chunk {
    std::int64_t due_us;
    std::string data;
    std::size_t offset = 0;
};

/// Bytes on their way from one socket to the other.
struct proxy_flow {
    std::deque<proxy_chunk> chunks;
    std::size_t bytes = 0;
    bool eof = false;       ///< the source closed its sending side
    bool shut = false;      ///< the eof was passed on (shutdown of the sink's sending side)
    bool has_due(std::int64_t now) const { return !chunks.empty() && chunks.front().due_us <= now; }
};

/// Both directions of one connection. Non-blocking sockets; errors abort the link.
class proxy_link {
public:
    proxy_link(int client_fd, int server_fd) : client_(client_fd), server_(server_fd) {}
    ~proxy_link();
    proxy_link(const proxy_link&) = delete;
    proxy_link& operator=(const proxy_link&) = delete;

    int client_fd() const { return client_; }
    int server_fd() const { return server_; }
    /// Reads what `fd` (one of the two) has into the flow towards the other socket.
    void read_from(int fd, std::int64_t due_us);
    /// Writes due bytes to `fd`.
    void write_to(int fd, std::int64_t now_us);
    bool wants_read(int fd) const;
    bool wants_write(int fd, std::int64_t now_us) const;
    /// The earliest time a queued chunk becomes due; INT64_MAX when none waits.
    std::int64_t next_due() const;
    /// Both sides closed and everything delivered, or an error: the link can go.
    bool finished() const;
    bool failed() const { return failed_; }
    /// A socket reported hang-up or error after its data was read: the link is over.
    void hang_up() { failed_ = true; }
    /// Closes both sockets with RST (SO_LINGER 0).
    void abort();

private:
    proxy_flow& inbound(int fd) { return fd == client_ ? up_ : down_; }
    proxy_flow& outbound(int fd) { return fd == client_ ? down_ : up_; }
    const proxy_flow& inbound(int fd) const { return fd == client_ ? up_ : down_; }
    const proxy_flow& outbound(int fd) const { return fd == client_ ? down_ : up_; }

    int client_;
    int server_;
    proxy_flow up_;    // client -> server
    proxy_flow down_;  // server -> client
    bool failed_ = false;
};

}  // namespace shedlock::chaos
