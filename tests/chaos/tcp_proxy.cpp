#include "tcp_proxy.hpp"

#include "chaos_clock.hpp"
#include "proxy_link.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace shedlock::chaos {
namespace {

constexpr std::size_t max_links = 512;
constexpr std::int64_t tick_us = 10'000;

sockaddr_in loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

void set_nonblocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/// A connection to the server, or -1 when it refuses (down). Loopback connects finish at once.
int connect_upstream(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in addr = loopback(port);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
        set_nonblocking(fd);
        return fd;
    }
    if (fd >= 0) ::close(fd);
    return -1;
}

}  // namespace

struct tcp_proxy::state {
    std::vector<std::unique_ptr<proxy_link>> links;
};

tcp_proxy::tcp_proxy(int upstream_port) : upstream_port_(upstream_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = loopback(0);
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 128) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw std::runtime_error(std::string("tcp_proxy: cannot listen on 127.0.0.1: ") + std::strerror(errno));
    set_nonblocking(listen_fd_);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
}

tcp_proxy::~tcp_proxy() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
}

void tcp_proxy::run() {
    state s;
    // Bounded in time by stop_: every pass sleeps at most one tick.
    while (!stop_) {
        if (reset_requested_.exchange(false)) {
            for (auto& link : s.links) link->abort();
            s.links.clear();
        }
        if (black_hole_) {  // nothing moves; not even poll(), which would report hang-ups at once
            sleep_us(tick_us);
            continue;
        }
        auto fds = poll_set(s);
        const std::int64_t after = now_us();
        if (fds.front().revents & POLLIN) accept_one(s);
        pump(s, fds, after);
    }
    for (auto& link : s.links) link->abort();
}

std::vector<pollfd> tcp_proxy::poll_set(state& s) const {
    const std::int64_t now = now_us();
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    std::int64_t wake = now + tick_us;
    for (const auto& link : s.links) {
        for (int fd : {link->client_fd(), link->server_fd()}) {
            short events = 0;
            if (link->wants_read(fd)) events |= POLLIN;
            if (link->wants_write(fd, now)) events |= POLLOUT;
            fds.push_back({fd, events, 0});
        }
        wake = std::min(wake, std::max(link->next_due(), now));
    }
    ::poll(fds.data(), fds.size(), static_cast<int>((wake - now + 999) / 1000));
    return fds;
}

void tcp_proxy::accept_one(state& s) {
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    set_nonblocking(client);
    const int server = s.links.size() < max_links ? connect_upstream(upstream_port_) : -1;
    auto link = std::make_unique<proxy_link>(client, server);
    if (server < 0) link->abort();  // the server is down: the client sees a reset
    else s.links.push_back(std::move(link));
    ++accepted_;
}

// Links accepted in this pass have no pollfd yet: only the first `fds.size() - 1` / 2 are served.
void tcp_proxy::pump(state& s, const std::vector<pollfd>& fds, std::int64_t now) {
    const std::int64_t due = now + latency_us_;
    const std::size_t polled = (fds.size() - 1) / 2;
    for (std::size_t l = 0; l < polled && l < s.links.size(); ++l) {
        proxy_link& link = *s.links[l];
        for (std::size_t side = 0; side < 2; ++side) {
            const int fd = side == 0 ? link.client_fd() : link.server_fd();
            const short revents = fds[1 + 2 * l + side].revents;
            if ((revents & (POLLIN | POLLHUP | POLLERR)) && link.wants_read(fd)) link.read_from(fd, due);
            else if (revents & (POLLHUP | POLLERR)) link.hang_up();  // gone for good: poll would spin
            if (revents & POLLOUT || link.wants_write(fd, now)) link.write_to(fd, now);
        }
    }
    std::erase_if(s.links, [](const std::unique_ptr<proxy_link>& link) {
        if (link->failed()) link->abort();
        return link->finished();
    });
}

}  // namespace shedlock::chaos
