#include "delay_relay.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <deque>
#include <memory>
#include <vector>

namespace shedlock::bench {
namespace {

using tcp = boost::asio::ip::tcp;
using steady = std::chrono::steady_clock;

/// Bytes one direction holds back at most: past it, it stops reading until its writes drain, so
/// a peer that does not read (or a frozen one) slows the sender down instead of filling memory.
constexpr std::size_t max_pending_bytes = 4 * 1024 * 1024;

class delay_relay;

/// One direction: reads from `from`, writes to `to` each chunk `delay` after it was read. The
/// source's end of stream is passed on (shutdown of the sending side) once every chunk read
/// before it has been written.
class delayed_direction {
public:
    delayed_direction(tcp::socket& from, tcp::socket& to, std::chrono::microseconds delay)
        : from_(from), to_(to), delay_(delay), timer_(from.get_executor()) {}

    void start(std::shared_ptr<delay_relay> owner) { read(std::move(owner)); }
    void cancel() { timer_.cancel(); }

private:
    struct chunk {
        steady::time_point due;
        std::vector<char> bytes;
    };

    void read(std::shared_ptr<delay_relay> owner);
    void wait_for_front(std::shared_ptr<delay_relay> owner);
    void written(std::shared_ptr<delay_relay> owner, std::size_t n);
    void pass_on_end(const std::shared_ptr<delay_relay>& owner);

    tcp::socket& from_;
    tcp::socket& to_;
    std::chrono::microseconds delay_;
    boost::asio::steady_timer timer_;
    std::array<char, 64 * 1024> buffer_{};
    std::deque<chunk> pending_;
    std::size_t pending_bytes_ = 0;
    std::vector<char> out_;
    bool writing_ = false;
    bool reading_ = false;
    bool source_ended_ = false;
};

class delay_relay : public std::enable_shared_from_this<delay_relay> {
public:
    delay_relay(tcp::socket client, std::chrono::microseconds delay)
        : client_(std::move(client)),
          server_(client_.get_executor()),
          up_(client_, server_, delay),
          down_(server_, client_, delay) {}

    void start(tcp::endpoint upstream) {
        server_.async_connect(upstream, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec) return self->end();
            // Small requests and answers: Nagle would add its own delay on top of ours.
            self->client_.set_option(tcp::no_delay(true), ec);
            self->server_.set_option(tcp::no_delay(true), ec);
            self->up_.start(self);
            self->down_.start(self);
        });
    }

    /// One direction passed its source's end on; both done: the relay closes.
    void direction_done() {
        if (++directions_done_ == 2) end();
    }

    /// Closes both sides (the other direction's pending reads and writes then fail and end too).
    void end() {
        boost::system::error_code ignored;
        client_.close(ignored);
        server_.close(ignored);
        up_.cancel();
        down_.cancel();
    }

private:
    tcp::socket client_;
    tcp::socket server_;
    delayed_direction up_;
    delayed_direction down_;
    int directions_done_ = 0;
};

void delayed_direction::read(std::shared_ptr<delay_relay> owner) {
    if (pending_bytes_ >= max_pending_bytes) return;  // written() reads again once drained
    reading_ = true;
    from_.async_read_some(boost::asio::buffer(buffer_), [this, owner](boost::system::error_code ec, std::size_t n) {
        reading_ = false;
        if (ec == boost::asio::error::eof) {
            source_ended_ = true;
            if (pending_.empty() && !writing_) pass_on_end(owner);
            return;
        }
        if (ec) return owner->end();
        pending_.push_back({steady::now() + delay_, std::vector<char>(buffer_.data(), buffer_.data() + n)});
        pending_bytes_ += n;
        if (pending_.size() == 1 && !writing_) wait_for_front(owner);
        read(owner);
    });
}

void delayed_direction::wait_for_front(std::shared_ptr<delay_relay> owner) {
    timer_.expires_at(pending_.front().due);
    timer_.async_wait([this, owner](boost::system::error_code ec) {
        if (ec) return;
        // Every chunk due by now goes out in one write.
        writing_ = true;
        out_.clear();
        const auto now = steady::now();
        while (!pending_.empty() && pending_.front().due <= now) {
            out_.insert(out_.end(), pending_.front().bytes.begin(), pending_.front().bytes.end());
            pending_.pop_front();
        }
        boost::asio::async_write(to_, boost::asio::buffer(out_), [this, owner](boost::system::error_code ec, std::size_t n) {
            if (ec) return owner->end();
            written(owner, n);
        });
    });
}

void delayed_direction::written(std::shared_ptr<delay_relay> owner, std::size_t n) {
    writing_ = false;
    pending_bytes_ -= n;
    if (!pending_.empty()) wait_for_front(owner);
    else if (source_ended_) return pass_on_end(owner);
    if (!reading_ && !source_ended_) read(owner);
}

void delayed_direction::pass_on_end(const std::shared_ptr<delay_relay>& owner) {
    boost::system::error_code ignored;
    to_.shutdown(tcp::socket::shutdown_send, ignored);
    owner->direction_done();
}

}  // namespace

void start_delay_relay(tcp::socket client, tcp::endpoint upstream, std::chrono::microseconds delay) {
    std::make_shared<delay_relay>(std::move(client), delay)->start(upstream);
}

}  // namespace shedlock::bench
