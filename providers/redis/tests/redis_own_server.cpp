#include "redis_own_server.hpp"

#include "process_freeze.hpp"

#include "redis_test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace shedlock::test {
namespace {

/// A port the kernel just handed out (and took back): free unless someone else grabs it now.
std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw std::runtime_error("own_redis_server: no free port");
    ::close(fd);
    return ntohs(address.sin_port);
}

bool answers_ping(const providers::redis_options& options) {
    try {
        raw_redis redis(options);
        return redis.text({"PING"}) == "PONG";
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

own_redis_server::own_redis_server() : port_(free_port()) {
    log_ = "/tmp/shedlock-own-redis-" + std::to_string(::getpid()) + "-" + std::to_string(port_) + ".log";
    std::vector<std::string> args{"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", "--logfile", log_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawnp(&pid_, "redis-server", nullptr, nullptr, argv.data(), environ) != 0)
        throw std::runtime_error("own_redis_server: cannot start redis-server (not on PATH?)");
    for (int i = 0; i < 100; ++i) {
        if (answers_ping(options())) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    throw std::runtime_error("own_redis_server: redis-server did not answer on port " + std::to_string(port_) +
                             " within 10 s; see " + log_);
}

own_redis_server::~own_redis_server() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 50; ++i) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
            ::unlink(log_.c_str());
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ::unlink(log_.c_str());
}

providers::redis_options own_redis_server::options() const {
    providers::redis_options options;
    options.host = "127.0.0.1";
    options.port = port_;
    return options;
}

void own_redis_server::freeze() { stop_processes({pid_}); }
void own_redis_server::thaw() { continue_processes({pid_}); }

}  // namespace shedlock::test
