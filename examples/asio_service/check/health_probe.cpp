#include "health_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace asio_service_check {
namespace {

using probe_clock = std::chrono::steady_clock;

void set_timeouts(int fd, std::chrono::milliseconds limit) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(limit.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((limit.count() % 1000) * 1000);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/// The whole answer (the server closes: Connection: close), or an error text.
bool exchange(int fd, unsigned short port, std::string& reply) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        reply = std::string("connect: ") + std::strerror(errno);
        return false;
    }
    const std::string request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
        reply = std::string("send: ") + std::strerror(errno);
        return false;
    }
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) return true;
        if (n < 0) {
            reply = std::string("recv: ") + std::strerror(errno) + " after \"" + reply + "\"";
            return false;
        }
        reply.append(buffer, static_cast<std::size_t>(n));
    }
}

}  // namespace

probe_result probe_health(unsigned short port, std::chrono::milliseconds limit) {
    probe_result result;
    const auto start = probe_clock::now();
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        result.body = std::string("socket: ") + std::strerror(errno);
        return result;
    }
    set_timeouts(fd, limit);
    std::string reply;
    const bool complete = exchange(fd, port, reply);
    ::close(fd);
    result.took = std::chrono::duration_cast<std::chrono::milliseconds>(probe_clock::now() - start);
    const auto body_at = reply.find("\r\n\r\n");
    result.body = complete && body_at != std::string::npos ? reply.substr(body_at + 4) : reply;
    result.ok = complete && reply.rfind("HTTP/1.1 200", 0) == 0 &&
                result.body.find("{\"status\":\"ok\"") != std::string::npos;
    return result;
}

}  // namespace asio_service_check
