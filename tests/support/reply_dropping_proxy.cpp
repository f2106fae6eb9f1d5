#include "reply_dropping_proxy.hpp"

#include "fake_server.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace shedlock::test {
namespace {

int connect_upstream(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return fd;
    if (fd >= 0) ::close(fd);
    return -1;
}

}  // namespace

reply_dropping_proxy::reply_dropping_proxy(std::uint16_t upstream_port) : upstream_(upstream_port) {
    listener_ = listen_on_loopback(port_, "reply_dropping_proxy");
    thread_ = std::thread([this] { serve(); });
}

reply_dropping_proxy::~reply_dropping_proxy() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);  // wakes the poll in serve()
    thread_.join();
    for (auto& t : relays_) t.join();
    ::close(listener_);
}

void reply_dropping_proxy::arm(const std::string& marker) {
    std::lock_guard<std::mutex> guard(mutex_);
    marker_ = marker;
}

bool reply_dropping_proxy::takes_marker(const std::string& chunk) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (marker_.empty() || chunk.find(marker_) == std::string::npos) return false;
    marker_.clear();
    return true;
}

void reply_dropping_proxy::serve() {
    while (true) {
        const int client = accept_next(listener_);
        if (client < 0) return;
        const int server = connect_upstream(upstream_);
        if (server < 0) {
            ::close(client);
            continue;
        }
        relays_.emplace_back([this, client, server] { relay(client, server); });
    }
}

void reply_dropping_proxy::relay(int client, int server) {
    bool dropping = false;
    char buf[65536];
    // The poll timeout only lets a destroyed proxy stop its relays; data wakes it at once.
    while (!stopping_) {
        pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        if (::poll(fds, 2, 200) < 0) break;
        if (fds[0].revents != 0) {
            const ssize_t n = ::read(client, buf, sizeof buf);
            if (n <= 0) break;
            const std::string chunk(buf, static_cast<std::size_t>(n));
            if (takes_marker(chunk)) dropping = true;
            if (!write_all(server, chunk)) break;
        }
        if (fds[1].revents != 0) {
            const ssize_t n = ::read(server, buf, sizeof buf);
            if (n <= 0 || dropping) {  // the reply to the marked request is lost with the connection
                if (dropping) fired_ = true;
                break;
            }
            if (!write_all(client, std::string(buf, static_cast<std::size_t>(n)))) break;
        }
    }
    ::shutdown(client, SHUT_RDWR);
    ::close(client);
    ::close(server);
}

}  // namespace shedlock::test
