#include "process.hpp"

#include "chaos_clock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace shedlock::chaos {
namespace {

bool starts_with(const char* text, const char* prefix) { return std::strncmp(text, prefix, std::strlen(prefix)) == 0; }

std::vector<char*> pointers(const std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

/// The parent pid from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold spaces).
pid_t parent_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = -1;
    rest >> state >> ppid;
    return ppid;
}

}  // namespace

std::vector<std::string> base_environment() {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        if (starts_with(*e, "SHEDLOCK_PROVIDER=") || starts_with(*e, "LD_PRELOAD=") || starts_with(*e, "FAKETIME"))
            continue;
        env.emplace_back(*e);
    }
    return env;
}

pid_t spawn_process(const spawn_request& request) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, request.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    auto argv = pointers(request.argv);
    auto envp = pointers(request.env);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) throw std::runtime_error("cannot start " + request.argv[0] + ": " + std::strerror(rc));
    return pid;
}

child_process::child_process(pid_t pid) : pid_(pid), pidfd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {
    if (pidfd_ < 0) throw std::runtime_error("pidfd_open(" + std::to_string(pid) + "): " + std::strerror(errno));
}

child_process::~child_process() { ::close(pidfd_); }

bool child_process::wait_exit(std::int64_t deadline_us) {
    // Bounded: each poll waits at most until the deadline, which does not move.
    for (;;) {
        const std::int64_t left_ms = (deadline_us - now_us() + 999) / 1000;
        pollfd p{pidfd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(std::clamp<std::int64_t>(left_ms, 0, 1000)));
        if (rc > 0) return true;
        if (rc < 0 && errno != EINTR) throw std::runtime_error(std::string("poll(pidfd): ") + std::strerror(errno));
        if (now_us() >= deadline_us) return false;
    }
}

int child_process::reap(bool& signalled) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0) {
        if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    signalled = WIFSIGNALED(status);
    return signalled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    const std::string tasks = "/proc/" + std::to_string(parent) + "/task";
    DIR* dir = ::opendir(tasks.c_str());
    if (!dir) return children;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        std::ifstream in(tasks + "/" + entry->d_name + "/children");
        pid_t pid = 0;
        while (in >> pid) children.push_back(pid);
    }
    ::closedir(dir);
    return children;
}

int open_child_pidfd(pid_t parent, pid_t pid) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0) return -1;
    // Checked after opening: the pidfd pins the process it was opened for, so if that process
    // is still `parent`'s child now, the pidfd refers to it and not to a later holder of the pid.
    if (parent_of(pid) != parent) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool send_signal(int pidfd, int sig) { return ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0; }

}  // namespace shedlock::chaos
