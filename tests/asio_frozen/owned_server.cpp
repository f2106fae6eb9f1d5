#include "owned_server.hpp"

#include "process_freeze.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <vector>

namespace shedlock::test {
namespace {

/// The port variables of each server.sh (the Redis script also starts a replica).
std::vector<std::string> port_variables(const std::string& provider) {
    if (provider == "redis") return {"SHEDLOCK_REDIS_PORT", "SHEDLOCK_REDIS_REPLICA_PORT"};
    if (provider == "postgres") return {"SHEDLOCK_POSTGRES_PORT"};
    if (provider == "mysql") return {"SHEDLOCK_MARIADB_PORT"};
    throw std::invalid_argument("owned_server: no server.sh for provider \"" + provider +
                                "\" (redis, postgres or mysql)");
}

std::string script_of(const std::string& provider) {
    return std::string(SHEDLOCK_SOURCE_DIR) + "/providers/" + provider + "/server.sh";
}

/// Runs `line` in a shell; its output, and whether it exited 0.
bool run(const std::string& line, std::string& output) {
    FILE* pipe = ::popen((line + " 2>&1 </dev/null").c_str(), "r");
    if (!pipe) return false;
    char buffer[4096];
    while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    return ::pclose(pipe) == 0;
}

}  // namespace

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

owned_server::owned_server(const std::string& provider) : provider_(provider) {
    // Under /tmp: short paths (MariaDB's socket) that PostgreSQL's own user can reach as root.
    std::string pattern = "/tmp/shedlock-owned-" + provider + "-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("owned_server: cannot create " + pattern);
    ::chmod(pattern.c_str(), 0755);
    dir_ = pattern + "/server";
    std::string line;
    for (const auto& variable : port_variables(provider)) line += variable + "=" + std::to_string(free_loopback_port()) + " ";
    line += "'" + script_of(provider) + "' start '" + dir_ + "'";
    std::string output;
    const bool started = run(line, output);
    static const std::regex export_line("export ([A-Z_]+)='([^']*)'");
    for (std::sregex_iterator it(output.begin(), output.end(), export_line), end; it != end; ++it)
        env_[(*it)[1]] = (*it)[2];
    std::ifstream(dir_ + "/pid") >> pid_;
    if (!started || pid_ <= 0) {
        std::string ignored;
        run("'" + script_of(provider) + "' stop '" + dir_ + "'", ignored);
        throw std::runtime_error("owned_server: `" + line + "` failed:\n" + output);
    }
}

owned_server::~owned_server() {
    if (frozen_) thaw();
    std::string ignored;
    run("'" + script_of(provider_) + "' stop '" + dir_ + "'", ignored);
    std::error_code error;
    std::filesystem::remove_all(std::filesystem::path(dir_).parent_path(), error);
}

const std::string& owned_server::env(const std::string& name) const {
    const auto found = env_.find(name);
    if (found == env_.end())
        throw std::runtime_error("owned_server: providers/" + provider_ + "/server.sh did not export " + name);
    return found->second;
}

void owned_server::freeze() {
    frozen_ = true;
    try {
        stop_processes(process_tree(pid_));
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("owned_server: the " + provider_ + " server: " + e.what());
    }
}

void owned_server::thaw() {
    continue_processes(process_tree(pid_));
    // As root PostgreSQL runs under `runuser`, which stops itself when its child stops (su's job
    // control) and would otherwise stay stopped, unable to reap the server when it exits.
    if (const pid_t launcher = parent_process(pid_); launcher > 1 && process_is_stopped(launcher))
        ::kill(launcher, SIGCONT);
    frozen_ = false;
}

}  // namespace shedlock::test
