#pragma once
// A redis-server the chaos run starts itself: persistence on (appendonly, appendfsync always),
// so a restart must keep every lock; its restarts are crashes (SIGKILL), not shutdowns.

#include <sys/types.h>

#include <string>

namespace shedlock::chaos {

class own_redis {
public:
    /// Starts redis-server on a free loopback port with its files in `dir`; waits for PING.
    explicit own_redis(std::string dir);
    ~own_redis();  ///< stops it (SIGTERM)
    own_redis(const own_redis&) = delete;
    own_redis& operator=(const own_redis&) = delete;

    int port() const noexcept { return port_; }
    void crash();   ///< SIGKILL, reaped
    void restart(); ///< start again on the same files; waits for PING

private:
    void start();
    void stop(int sig);

    std::string dir_;
    int port_;
    pid_t pid_ = -1;
};

/// A free TCP port on 127.0.0.1 (bound and released: the caller should use it at once).
int free_loopback_port();

/// True once something on 127.0.0.1:port answers PING with +PONG (within ~10 s).
bool wait_for_redis(int port);

}  // namespace shedlock::chaos
