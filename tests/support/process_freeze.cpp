#include "process_freeze.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace shedlock::test {
namespace {

struct process_stat {
    char state = 0;  ///< 'T': stopped; 0: unreadable (gone)
    pid_t parent = -1;
};

/// The state and parent in a /proc stat file (of a process, or of one thread under task/).
process_stat stat_at(const std::string& path) {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    process_stat result;
    const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
    if (close != std::string::npos) std::sscanf(text.c_str() + close + 1, " %c %d", &result.state, &result.parent);
    return result;
}

process_stat stat_of(pid_t pid) { return stat_at("/proc/" + std::to_string(pid) + "/stat"); }

bool stopped_or_gone(char state) { return state == 0 || state == 'T' || state == 't' || state == 'Z' || state == 'X'; }

}  // namespace

pid_t parent_process(pid_t pid) { return stat_of(pid).parent; }

bool process_is_stopped(pid_t pid) {
    const char state = stat_of(pid).state;
    return state == 'T' || state == 't';
}

std::vector<pid_t> process_tree(pid_t root) {
    std::vector<pid_t> all;
    if (DIR* proc = ::opendir("/proc")) {
        while (const dirent* entry = ::readdir(proc))
            if (const int pid = std::atoi(entry->d_name); pid > 0) all.push_back(pid);
        ::closedir(proc);
    }
    std::vector<pid_t> tree{root};
    for (std::size_t i = 0; i < tree.size(); ++i)
        for (pid_t pid : all)
            if (parent_process(pid) == tree[i]) tree.push_back(pid);
    return tree;
}

bool all_threads_stopped(pid_t pid) {
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    DIR* dir = ::opendir(tasks.c_str());
    if (!dir) return true;
    bool stopped = true;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        if (!stopped_or_gone(stat_at(tasks + "/" + entry->d_name + "/stat").state)) stopped = false;
    }
    ::closedir(dir);
    return stopped;
}

void stop_processes(const std::vector<pid_t>& pids, std::chrono::milliseconds limit) {
    for (pid_t pid : pids) ::kill(pid, SIGSTOP);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (pid_t pid : pids)
        while (!all_threads_stopped(pid)) {
            if (std::chrono::steady_clock::now() > deadline)
                throw std::runtime_error("process " + std::to_string(pid) + " did not stop within " +
                                         std::to_string(limit.count()) + " ms of SIGSTOP");
            ::usleep(1000);
        }
}

void continue_processes(const std::vector<pid_t>& pids) {
    for (pid_t pid : pids) ::kill(pid, SIGCONT);
}

}  // namespace shedlock::test
