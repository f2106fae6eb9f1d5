#include "proxy_link.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace shedlock::chaos {
namespace {

constexpr std::size_t max_buffered = 1 << 20;  // per direction: stop reading beyond this
constexpr std::size_t read_size = 64 * 1024;

void close_with_reset(int fd) {
    if (fd < 0) return;
    linger hard{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    ::close(fd);
}

}  // namespace

proxy_link::~proxy_link() {
    if (client_ >= 0) ::close(client_);
    if (server_ >= 0) ::close(server_);
}

void proxy_link::read_from(int fd, std::int64_t due_us) {
    proxy_flow& flow = inbound(fd);
    std::string buffer(read_size, '\0');
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
        buffer.resize(static_cast<std::size_t>(n));
        flow.bytes += buffer.size();
        flow.chunks.push_back({due_us, std::move(buffer)});
    } else if (n == 0) {
        flow.eof = true;
    } else if (errno != EAGAIN && errno != EINTR) {
        failed_ = true;
    }
}

void proxy_link::write_to(int fd, std::int64_t now_us) {
    proxy_flow& flow = outbound(fd);
    // Bounded by the queue: each pass either empties a chunk or stops on a full socket.
    while (flow.has_due(now_us)) {
        proxy_chunk& chunk = flow.chunks.front();
        const ssize_t n = ::send(fd, chunk.data.data() + chunk.offset, chunk.data.size() - chunk.offset, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) failed_ = true;
            return;
        }
        chunk.offset += static_cast<std::size_t>(n);
        flow.bytes -= static_cast<std::size_t>(n);
        if (chunk.offset < chunk.data.size()) return;
        flow.chunks.pop_front();
    }
    if (flow.eof && flow.chunks.empty() && !flow.shut) {
        ::shutdown(fd, SHUT_WR);
        flow.shut = true;
    }
}

bool proxy_link::wants_read(int fd) const {
    const proxy_flow& flow = inbound(fd);
    return !flow.eof && flow.bytes < max_buffered;
}

bool proxy_link::wants_write(int fd, std::int64_t now_us) const {
    const proxy_flow& flow = outbound(fd);
    return flow.has_due(now_us) || (flow.eof && flow.chunks.empty() && !flow.shut);
}

std::int64_t proxy_link::next_due() const {
    std::int64_t due = LLONG_MAX;
    if (!up_.chunks.empty()) due = std::min(due, up_.chunks.front().due_us);
    if (!down_.chunks.empty()) due = std::min(due, down_.chunks.front().due_us);
    return due;
}

bool proxy_link::finished() const { return failed_ || (up_.shut && down_.shut); }

void proxy_link::abort() {
    close_with_reset(client_);
    close_with_reset(server_);
    client_ = server_ = -1;
}

}  // namespace shedlock::chaos
