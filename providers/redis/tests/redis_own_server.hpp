#pragma once
// A redis-server of the test's own, on a free loopback port, without a password: for tests that
// freeze it (SIGSTOP) or kill all its clients, which the shared test server must never see.

#include <shedlock/providers/redis_lock_provider.hpp>

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace shedlock::test {

class own_redis_server {
public:
    /// Starts redis-server (from PATH) and waits until it answers PING (at most 10 s); throws
    /// std::runtime_error naming the log file otherwise.
    own_redis_server();
    /// Thaws and stops it (SIGTERM, then SIGKILL after 5 s).
    ~own_redis_server();
    own_redis_server(const own_redis_server&) = delete;
    own_redis_server& operator=(const own_redis_server&) = delete;

    std::uint16_t port() const noexcept { return port_; }
    /// Options reaching it (timeouts as given).
    providers::redis_options options() const;
    /// SIGSTOP: connections stay open, nothing is answered; returns once the server is stopped.
    /// thaw() resumes it.
    void freeze();
    void thaw();

private:
    std::uint16_t port_ = 0;
    pid_t pid_ = -1;
    std::string log_;
};

}  // namespace shedlock::test
