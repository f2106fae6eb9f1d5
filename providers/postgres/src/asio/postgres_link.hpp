#pragma once
// One libpq connection's socket on an Asio executor: the waits the non-blocking connect and the
// statements need, and closing in the order libpq requires (private: libpq stays out of public
// headers).

#include <shedlock/asio/detail/unique_function.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>

#include <libpq-fe.h>

#include <memory>
#include <sys/types.h>
#include <string>

namespace shedlock::providers::detail {

/// Owns a PGconn and watches its socket. Every member is called on the executor (a strand); the
/// waits complete there. Shared by the operations in flight, so a wait that completes after the
/// owner closed finds the link still alive (and closed).
class postgres_link : public std::enable_shared_from_this<postgres_link> {
public:
    using wait_handler = asio::detail::unique_function<void(boost::system::error_code)>;

    /// Takes ownership of `conn` (from PQconnectStart, never null).
    postgres_link(boost::asio::any_io_executor executor, PGconn* conn);
    ~postgres_link();
    postgres_link(const postgres_link&) = delete;
    postgres_link& operator=(const postgres_link&) = delete;

    PGconn* get() const noexcept { return conn_; }
    const boost::asio::any_io_executor& executor() const noexcept { return executor_; }
    bool open() const noexcept { return conn_ != nullptr; }

    /// Calls `then` once the socket is writable (`write`) or readable, or with operation_aborted
    /// after close(). Asio's epoll reactor is edge-triggered: readiness that came while nobody
    /// waited is not reported again, and libpq does not always read until EAGAIN. So the state
    /// is checked first (a zero-timeout poll) and a ready socket completes at once (posted).
    /// Follows libpq onto a new socket (connecting tries the next address, or again without TLS).
    void wait(bool write, wait_handler then);

    /// Cancels the waits (they complete with operation_aborted) and closes the connection: the
    /// descriptor is released first, so that libpq alone closes its socket.
    void close() noexcept;

private:
    bool follow_socket();

    boost::asio::any_io_executor executor_;
    PGconn* conn_;
    boost::asio::posix::stream_descriptor socket_;
    int fd_ = -1;            // the descriptor socket_ watches
    unsigned long inode_ = 0;  // and its socket's inode
    bool kicked_ = false;      // the wait was cancelled because the socket was ready after all
};

}  // namespace shedlock::providers::detail
