#include "own_redis.hpp"

#include "chaos_clock.hpp"
#include "process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace shedlock::chaos {
namespace {

sockaddr_in loopback_address(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

bool answers_ping(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in addr = loopback_address(port);
    timeval timeout{0, 500'000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    bool ok = false;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
        ::send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6) {
        char reply[16] = {};
        ok = ::recv(fd, reply, sizeof reply - 1, 0) > 0 && std::strncmp(reply, "+PONG", 5) == 0;
    }
    ::close(fd);
    return ok;
}

std::string redis_server_path() {
    for (const char* path : {"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"})
        if (::access(path, X_OK) == 0) return path;
    throw std::runtime_error("redis-server not found; run scripts/install-deps.sh");
}

}  // namespace

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = loopback_address(0);
    socklen_t len = sizeof addr;
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

bool wait_for_redis(int port) {
    const std::int64_t deadline = now_us() + 10'000'000;
    while (now_us() < deadline) {
        if (answers_ping(port)) return true;
        sleep_us(50'000);
    }
    return false;
}

own_redis::own_redis(std::string dir) : dir_(std::move(dir)), port_(free_loopback_port()) {
    std::filesystem::create_directories(dir_);
    start();
}

own_redis::~own_redis() { stop(SIGTERM); }

void own_redis::start() {
    spawn_request r;
    r.argv = {redis_server_path(), "--port", std::to_string(port_), "--bind", "127.0.0.1", "--dir", dir_,
              "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"};
    r.env = base_environment();
    r.output_path = dir_ + "/redis.log";
    pid_ = spawn_process(r);
    if (!wait_for_redis(port_))
        throw std::runtime_error("own redis-server on port " + std::to_string(port_) + " did not answer; see " +
                                 r.output_path);
}

void own_redis::stop(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    int status = 0;
    const std::int64_t deadline = now_us() + 10'000'000;
    while (::waitpid(pid_, &status, WNOHANG) == 0 && now_us() < deadline) sleep_us(20'000);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {  // it ignored SIGTERM for 10 s
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
}

void own_redis::crash() { stop(SIGKILL); }

void own_redis::restart() { start(); }

}  // namespace shedlock::chaos
