#pragma once
// A client-side deadline for blocking calls on a socket. libpq waits for a server's answer
// without a time limit, and a server that stopped answering (a process stopped by SIGSTOP, a
// host whose network went silent) still acknowledges TCP, so neither the server's
// statement_timeout nor TCP keepalive ends the wait. When a deadline passes, the socket is shut
// down: the blocked read returns at once and the connection counts as broken.

#include <chrono>
#include <cstdint>

namespace shedlock::providers::detail {

/// While alive, `fd` is shut down (SHUT_RDWR) if `after` passes first. Destroy it before the
/// descriptor is closed: the shutdown happens only while the deadline is armed, so a reused
/// descriptor number is never touched. One process-wide thread watches every armed deadline.
class socket_deadline {
public:
    socket_deadline(int fd, std::chrono::steady_clock::duration after);
    ~socket_deadline();
    socket_deadline(const socket_deadline&) = delete;
    socket_deadline& operator=(const socket_deadline&) = delete;

    /// Whether the deadline passed and the socket was shut down.
    bool expired() const;

private:
    std::uint64_t id_;
};

}  // namespace shedlock::providers::detail
