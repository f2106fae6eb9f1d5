#pragma once
// GET /health on the application's io_context: accept, read and write are coroutines on the
// same executor as the scheduler, so an answer that comes late means the executor was blocked.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace asio_service {

/// A small HTTP/1.1 server: GET /health answers 200 with "ok" and the JSON of `status`; any
/// other target 404. Bounded: a request's header at most 4 KiB (no body), every read and write
/// within `io_timeout` (an idle or slow client is cut off, it cannot hold a connection open),
/// at most connection_limit() at a time (more are closed on accept). The limit leaves half of
/// the descriptors the process may still open, beyond a reserve, to the lock backend: idle
/// clients cannot starve the scheduler's backend calls of descriptors (under `ulimit -n 24` and
/// 200 idle clients the SQLite calls failed with "unable to open database file").
///
/// Thread safety: start() and stop() from one thread; `status` is called on the executor.
class health_server {
public:
    /// Binds 127.0.0.1:`port` (0: a free port, see port()); throws std::system_error naming it.
    health_server(boost::asio::any_io_executor executor, unsigned short port, std::function<std::string()> status);

    unsigned short port() const { return port_; }
    /// Starts accepting (a coroutine on the executor).
    void start();
    /// Closes the listening socket; connections in progress end by themselves.
    void stop();

    static constexpr std::chrono::seconds io_timeout{5};
    static constexpr int max_connections = 64;
    /// Descriptors kept for everything but HTTP connections (backend, journal, timers).
    static constexpr long reserved_descriptors = 32;
    /// min(max_connections, (RLIMIT_NOFILE soft limit - reserved_descriptors) / 2), at least 1.
    static int connection_limit();

    struct shared;  ///< the acceptor and the connection count, shared with the coroutines

private:
    std::shared_ptr<shared> shared_;
    unsigned short port_;
};

}  // namespace asio_service
