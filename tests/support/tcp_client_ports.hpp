#pragma once
// Which TCP connections a process has open to a server port, read from /proc: a test that kills
// "the store's connections" on a shared server kills exactly those (the server knows each one by
// its client port), never another test's. Header-only, so any test program can use it.

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::test {

/// Local ports of the established TCP connections (IPv4 and IPv6) of process `pid` whose remote
/// port is `server_port`. Empty when the process has none (or is gone).
inline std::vector<int> tcp_client_ports(pid_t pid, int server_port) {
    const std::string proc = "/proc/" + std::to_string(pid);
    std::set<std::string> inodes;  // "socket:[123]" links of the process's descriptors
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd", ec)) {
        const auto target = std::filesystem::read_symlink(fd.path(), ec).string();
        if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
    }
    std::vector<int> ports;
    for (const char* table : {"/net/tcp", "/net/tcp6"}) {
        std::ifstream in(proc + table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
            fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
            const int remote_port = std::stoi(remote.substr(remote.find(':') + 1), nullptr, 16);
            if (state == "01" && remote_port == server_port && inodes.count(inode))
                ports.push_back(std::stoi(local.substr(local.find(':') + 1), nullptr, 16));
        }
    }
    return ports;
}

/// Waits until none of `ports` is an established connection of `pid` to `server_port` any more,
/// i.e. the server really closed them (a kill may return before the socket is shut). A generous
/// deadline: only a server that ignored the kill takes that long. False when it passed.
inline bool wait_until_closed(pid_t pid, int server_port, const std::vector<int>& ports,
                              std::chrono::seconds deadline = std::chrono::seconds{30}) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
        const auto open = tcp_client_ports(pid, server_port);
        const bool any_left = std::any_of(ports.begin(), ports.end(), [&](int p) {
            return std::find(open.begin(), open.end(), p) != open.end();
        });
        if (!any_left) return true;
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
}

/// "p1, p2, ..." for an SQL IN list.
inline std::string port_list(const std::vector<int>& ports) {
    std::string list;
    for (int p : ports) list += (list.empty() ? "" : ", ") + std::to_string(p);
    return list;
}

}  // namespace shedlock::test
