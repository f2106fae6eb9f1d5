#include "child_exec.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace shedlock::cli {
namespace {

/// The variables the tool itself reads: never handed to the command.
constexpr std::string_view always_removed[] = {"SHEDLOCK_PROVIDER", "SHEDLOCK_HTTP_TOKEN"};

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

bool removed(std::string_view name, const child_command& command) {
    if (std::find(std::begin(always_removed), std::end(always_removed), name) != std::end(always_removed)) return true;
    for (const auto& r : command.removed_env)
        if (r == name) return true;
    for (const auto& [key, value] : command.extra_env)
        if (key == name) return true;  // replaced by the extra value
    return false;
}

/// Marks every descriptor above 2 close-on-exec: sockets of the lock backend, the caller's
/// pipes, anything a library opened. The exec-error pipe is close-on-exec already.
void keep_only_standard_descriptors() {
    if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
    rlimit limit{};
    const rlim_t last = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur : 65536;
    for (rlim_t fd = 3; fd < last; ++fd) {
        const int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
        if (flags >= 0) ::fcntl(static_cast<int>(fd), F_SETFD, flags | FD_CLOEXEC);
    }
}

/// Default dispositions for every signal: an ignored SIGPIPE (the MySQL client library ignores
/// it) would otherwise survive exec and `yes | head -1` would exit 1 instead of 141.
void default_signal_dispositions() {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a daemon blocks signals for sigwait
}

}  // namespace

exec_image::exec_image(const child_command& command) {
    strings_.reserve(command.argv.size() + command.extra_env.size());
    for (const auto& a : command.argv) strings_.push_back(a);
    for (const auto& [key, value] : command.extra_env) strings_.push_back(key + "=" + value);
    std::size_t i = 0;
    for (; i < command.argv.size(); ++i) argv_.push_back(strings_[i].data());
    argv_.push_back(nullptr);
    for (char** e = environ; e && *e; ++e)
        if (!removed(name_of(*e), command)) envp_.push_back(*e);
    for (; i < strings_.size(); ++i) envp_.push_back(strings_[i].data());
    envp_.push_back(nullptr);
}

void exec_image::exec_in_child(int report_fd, bool take_terminal) const {
    ::setpgid(0, 0);
    if (take_terminal) {
        // A background group may not take the terminal unless it ignores SIGTTOU; the parent
        // does the same, so whichever runs first, the command reads the terminal without SIGTTIN.
        ::signal(SIGTTOU, SIG_IGN);
        ::tcsetpgrp(STDIN_FILENO, ::getpid());
    }
    default_signal_dispositions();
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the wrapper died: its lease will lapse, so stop too
    keep_only_standard_descriptors();
    ::execvpe(argv_[0], argv_.data(), envp_.data());
    const int error = errno;
    (void)!::write(report_fd, &error, sizeof error);
    ::_exit(127);
}

}  // namespace shedlock::cli
