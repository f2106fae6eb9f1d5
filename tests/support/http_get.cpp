#include "http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace shedlock::test {
namespace {

void parse_reply(const std::string& raw, http_reply& reply) {
    const auto head_end = raw.find("\r\n\r\n");
    if (head_end == std::string::npos || raw.compare(0, 5, "HTTP/") != 0) return;
    reply.status = std::stoi(raw.substr(raw.find(' ') + 1, 3));
    std::size_t line = raw.find("\r\n") + 2;
    while (line < head_end) {
        const auto end = raw.find("\r\n", line);
        const auto colon = raw.find(':', line);
        if (colon != std::string::npos && colon < end) {
            std::string name = raw.substr(line, colon - line);
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
            auto value = raw.substr(colon + 1, end - colon - 1);
            value.erase(0, value.find_first_not_of(' '));
            reply.headers[name] = value;
        }
        line = end + 2;
    }
    reply.body = raw.substr(head_end + 4);
}

}  // namespace

http_reply http_request(std::uint16_t port, const std::string& method, const std::string& path,
                        const std::string& authorization, const std::string& host) {
    http_reply reply;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return reply;
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return reply;
    }
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n";
    if (!authorization.empty()) request += "Authorization: " + authorization + "\r\n";
    request += "\r\n";
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string raw;
    char buf[65536];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) raw.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    parse_reply(raw, reply);
    return reply;
}

}  // namespace shedlock::test
