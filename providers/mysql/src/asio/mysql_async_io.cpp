// Waiting for what the connector's *_start/*_cont calls ask: socket readiness through a
// stream_descriptor on mysql_get_socket (never owned: released before the connector closes
// it), MYSQL_WAIT_TIMEOUT through a timer, and our own deadline over the whole operation.
#include "mysql_async_session.hpp"

#include <boost/asio/post.hpp>

#include <sys/socket.h>

namespace shedlock::providers::detail {
namespace {

constexpr int socket_events = MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT;

}  // namespace

void mysql_async_session::run(int status, resume_fn resume, then_fn finished) {
    resume_ = std::move(resume);
    finished_ = std::move(finished);
    advance(status);
}

void mysql_async_session::advance(int status) {
    if (status == 0) {
        waiting_ = 0;
        resume_ = nullptr;
        auto finished = std::move(finished_);
        finished_ = nullptr;
        finished();  // may start the next call
        return;
    }
    waiting_ = status;
    const auto generation = ++generation_;
    if (timed_out_) {
        ++abort_rounds_;
        // Winding up after our deadline: answer at once (the socket is shut down, so whatever the
        // connector tries fails fast); it gives up within a few rounds.
        boost::asio::post(executor_, [self = shared_from_this(), generation] {
            self->resume(generation, self->abort_answer());
        });
        return;
    }
    if (status & socket_events) watch_socket(status, generation);
    if (status & MYSQL_WAIT_TIMEOUT) watch_timeout(generation);
}

void mysql_async_session::watch_socket(int status, std::uint64_t generation) {
    boost::system::error_code ec;
    if (!socket_.is_open()) socket_.assign(mysql_get_socket(db_), ec);
    auto wake = [self = shared_from_this(), generation, status](const boost::system::error_code& e) {
        if (e == boost::asio::error::operation_aborted) return;
        self->resume(generation, status & socket_events);
    };
    if (ec) {
        // Not a descriptor Asio can watch: let the connector try its I/O and report the error.
        boost::asio::post(executor_, [wake, ec] { wake(ec); });
        return;
    }
    using wait = boost::asio::posix::descriptor_base::wait_type;
    if (status & MYSQL_WAIT_READ) socket_.async_wait(wait::wait_read, wake);
    if (status & MYSQL_WAIT_WRITE) socket_.async_wait(wait::wait_write, wake);
    if ((status & socket_events) == MYSQL_WAIT_EXCEPT) socket_.async_wait(wait::wait_error, wake);
}

void mysql_async_session::watch_timeout(std::uint64_t generation) {
    io_timer_.expires_after(std::chrono::milliseconds(mysql_get_timeout_value_ms(db_)));
    io_timer_.async_wait([self = shared_from_this(), generation](const boost::system::error_code& e) {
        if (!e) self->resume(generation, MYSQL_WAIT_TIMEOUT);
    });
}

void mysql_async_session::resume(std::uint64_t generation, int ready) {
    if (closed_ || generation != generation_ || !resume_) return;  // a stale wake-up
    ++generation_;
    waiting_ = 0;
    io_timer_.cancel();
    // While connecting the connector may close this socket and open another (the next address):
    // never keep a descriptor registered across a _cont call then.
    boost::system::error_code ignored;
    if (socket_.is_open() && connecting_) socket_.release();
    else if (socket_.is_open()) socket_.cancel(ignored);
    advance(resume_(ready));
}

void mysql_async_session::start_deadline(std::chrono::milliseconds limit) {
    timed_out_ = false;
    abort_rounds_ = 0;
    deadline_.expires_after(limit);
    // An expiry already queued when its operation finished must not hit the next one: the id
    // says which operation a wake-up belongs to.
    deadline_.async_wait([self = shared_from_this(), id = ++deadline_id_](const boost::system::error_code& e) {
        if (!e && id == self->deadline_id_) self->on_deadline();
    });
}

void mysql_async_session::on_deadline() {
    if (closed_ || !resume_) return;  // finished meanwhile
    timed_out_ = true;
    broken_ = true;
    // The connection is given up: shut the socket so that the connector's remaining I/O fails at
    // once (a not yet connected socket ignores this; it is answered with MYSQL_WAIT_TIMEOUT).
    if (const auto fd = mysql_get_socket(db_); fd >= 0) ::shutdown(fd, SHUT_RDWR);
    if (waiting_ != 0) resume(generation_, abort_answer());
}

int mysql_async_session::abort_answer() const noexcept {
    // Past 64 rounds the connector is resumed as if its own timeout passed, whatever it waits for.
    if ((waiting_ & MYSQL_WAIT_TIMEOUT) || abort_rounds_ > 64) return MYSQL_WAIT_TIMEOUT;
    return waiting_ & socket_events;
}

}  // namespace shedlock::providers::detail
