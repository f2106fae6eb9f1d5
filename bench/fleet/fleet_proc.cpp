#include "fleet_proc.hpp"

#include <dirent.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace shedlock::bench::fleet {

namespace {

struct tcp_socket {
    int local_port = 0, remote_port = 0;
    bool listening = false;
};

/// Every TCP socket of this network namespace by inode, from /proc/net/tcp and tcp6.
std::map<unsigned long, tcp_socket> tcp_sockets_by_inode() {
    std::map<unsigned long, tcp_socket> sockets;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
            unsigned long inode = 0;
            fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
            const auto port_of = [](const std::string& address) {
                return static_cast<int>(std::stoul(address.substr(address.find(':') + 1), nullptr, 16));
            };
            sockets[inode] = {port_of(local), port_of(remote), state == "0A"};
        }
    }
    return sockets;
}

/// Inodes of the sockets `pid` holds open.
std::vector<unsigned long> socket_inodes(int pid) {
    std::vector<unsigned long> inodes;
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return inodes;
    while (const dirent* entry = readdir(d)) {
        char target[PATH_MAX];
        const std::string link = dir + "/" + entry->d_name;
        const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        unsigned long inode = 0;
        if (std::sscanf(target, "socket:[%lu]", &inode) == 1) inodes.push_back(inode);
    }
    closedir(d);
    return inodes;
}

}  // namespace

std::int64_t process_cpu_ns(int pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return -1;
    std::int64_t total = 0;
    while (const dirent* entry = readdir(d)) {
        if (entry->d_name[0] == '.') continue;
        std::ifstream in(dir + "/" + entry->d_name + "/schedstat");
        std::int64_t on_cpu_ns = 0;
        if (in >> on_cpu_ns) total += on_cpu_ns;
    }
    closedir(d);
    return total;
}

std::set<int> client_ports(const std::vector<int>& pids, int remote_port) {
    const auto sockets = tcp_sockets_by_inode();
    std::set<int> ports;
    for (int pid : pids)
        for (unsigned long inode : socket_inodes(pid)) {
            const auto it = sockets.find(inode);
            if (it != sockets.end() && !it->second.listening && it->second.remote_port == remote_port)
                ports.insert(it->second.local_port);
        }
    return ports;
}

int pid_listening_on(int port) {
    const auto sockets = tcp_sockets_by_inode();
    DIR* d = opendir("/proc");
    if (d == nullptr) return -1;
    int found = -1;
    while (const dirent* entry = readdir(d)) {
        const int pid = std::atoi(entry->d_name);
        if (pid <= 0) continue;
        for (unsigned long inode : socket_inodes(pid)) {
            const auto it = sockets.find(inode);
            if (it != sockets.end() && it->second.listening && it->second.local_port == port) found = pid;
        }
        if (found > 0) break;
    }
    closedir(d);
    return found;
}

}  // namespace shedlock::bench::fleet
