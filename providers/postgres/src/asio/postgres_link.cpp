#include "postgres_link.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>

#include <poll.h>
#include <sys/stat.h>

namespace shedlock::providers::detail {

postgres_link::postgres_link(boost::asio::any_io_executor executor, PGconn* conn)
    : executor_(std::move(executor)), conn_(conn), socket_(executor_) {}

postgres_link::~postgres_link() { close(); }

bool postgres_link::follow_socket() {
    const int fd = PQsocket(conn_);
    // The same number may name a new socket (libpq closed one address's and opened the next):
    // its inode tells them apart, and a new socket must be registered with the reactor anew.
    struct stat about {};
    const auto inode = fd >= 0 && ::fstat(fd, &about) == 0 ? about.st_ino : 0;
    if (fd == fd_ && inode == inode_ && socket_.is_open()) return true;
    if (socket_.is_open()) socket_.release();  // libpq closed (or keeps) it; never close it here
    fd_ = -1;
    if (fd < 0) return false;
    boost::system::error_code ec;
    socket_.assign(fd, ec);
    if (ec) return false;
    fd_ = fd;
    inode_ = inode;
    return true;
}

void postgres_link::wait(bool write, wait_handler then) {
    if (!conn_ || !follow_socket()) {
        boost::asio::post(executor_, [then = std::move(then)]() mutable {
            then(boost::asio::error::make_error_code(boost::asio::error::bad_descriptor));
        });
        return;
    }
    pollfd now{fd_, static_cast<short>(write ? POLLOUT : POLLIN), 0};
    if (::poll(&now, 1, 0) > 0) {
        boost::asio::post(executor_, [self = shared_from_this(), then = std::move(then)]() mutable {
            then(self->conn_ ? boost::system::error_code() : boost::asio::error::make_error_code(boost::asio::error::operation_aborted));
        });
        return;
    }
    using base = boost::asio::posix::descriptor_base;
    socket_.async_wait(write ? base::wait_write : base::wait_read,
                       [self = shared_from_this(), then = std::move(then)](boost::system::error_code ec) mutable {
                           if (ec == boost::asio::error::operation_aborted && self->kicked_ && self->conn_) ec = {};
                           self->kicked_ = false;
                           if (!ec && !self->conn_) ec = boost::asio::error::operation_aborted;
                           then(ec);
                       });
    // On a multi-threaded io_context another thread's epoll_wait may have taken the edge between
    // the check above and the wait's registration, and dropped it (no wait was queued yet). A
    // second look catches that: the wait is cancelled and completes as ready.
    if (::poll(&now, 1, 0) > 0) {
        kicked_ = true;
        socket_.cancel();
    }
}

void postgres_link::close() noexcept {
    if (socket_.is_open()) socket_.release();  // cancels the waits; the descriptor stays libpq's
    fd_ = -1;
    if (conn_) {
        PQfinish(conn_);
        conn_ = nullptr;
    }
}

}  // namespace shedlock::providers::detail
