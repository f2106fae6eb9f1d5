#include "fake_server.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace shedlock::test {

int listen_on_loopback(std::uint16_t& port, const char* who) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error(std::string(who) + ": cannot listen on 127.0.0.1");
    }
    port = ntohs(addr.sin_port);
    return fd;
}

fake_server::fake_server(std::function<void(int fd)> session) : session_(std::move(session)) {
    listener_ = listen_on_loopback(port_, "fake_server");
    thread_ = std::thread([this] { serve(); });
}

fake_server::~fake_server() {
    ::shutdown(listener_, SHUT_RDWR);  // wakes the poll in serve()
    thread_.join();
    ::close(listener_);
}

int accept_next(int listener) {
    pollfd waiting{listener, POLLIN, 0};
    if (::poll(&waiting, 1, -1) < 0 || (waiting.revents & (POLLHUP | POLLERR | POLLNVAL))) return -1;
    return ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
}

void fake_server::serve() {
    while (true) {
        const int fd = accept_next(listener_);
        if (fd < 0) return;
        session_(fd);
        ::close(fd);
    }
}

std::string read_exactly(int fd, std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd, out.data() + got, n - got);
        if (r <= 0) return "";
        got += static_cast<std::size_t>(r);
    }
    return out;
}

bool write_all(int fd, const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t w = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (w <= 0) return false;
        sent += static_cast<std::size_t>(w);
    }
    return true;
}

}  // namespace shedlock::test
