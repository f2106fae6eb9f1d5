#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace shedlock::cli {
namespace {

volatile sig_atomic_t child_group = 0;
volatile sig_atomic_t pending_signal = 0;  // arrived before the child's group existed
constexpr int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

extern "C" void forward_signal(int sig) {
    if (child_group > 0) ::kill(-child_group, sig);
    else pending_signal = sig;
}

void install_forwarding(bool on) {
    struct sigaction action {};
    action.sa_handler = on ? forward_signal : SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int sig : forwarded) ::sigaction(sig, &action, nullptr);
}

/// In the child: new process group, extra environment, exec. Reports errno through `report_fd`.
[[noreturn]] void exec_child(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& extra_env, int report_fd) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a daemon blocks signals for sigwait; the command must not inherit that
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the wrapper died: its lease will lapse, so stop too
    for (const auto& [key, value] : extra_env) ::setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const int error = errno;
    (void)!::write(report_fd, &error, sizeof error);
    ::_exit(127);
}

/// Empty when exec succeeded (the close-on-exec pipe closed without data), else the reason.
std::string exec_error(int read_fd, const std::string& program) {
    int error = 0;
    ssize_t n;
    do n = ::read(read_fd, &error, sizeof error);
    while (n < 0 && errno == EINTR);
    ::close(read_fd);
    if (n != static_cast<ssize_t>(sizeof error)) return "";
    return "cannot run \"" + program + "\": " + std::strerror(error) +
           (error == ENOENT ? " (not found in PATH; give the full path)" : "");
}

child_exit decode(int status) {
    child_exit result;
    if (WIFSIGNALED(status)) {
        result.signalled = true;
        result.status = 128 + WTERMSIG(status);
    } else {
        result.status = WEXITSTATUS(status);
    }
    return result;
}

}  // namespace

child_exit run_child(const std::vector<std::string>& argv,
                     const std::vector<std::pair<std::string, std::string>>& extra_env, const wait_policy& policy) {
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return {127, false, false, true, std::strerror(errno)};
    const bool forward = policy.forward_signals;
    pending_signal = 0;
    if (forward) install_forwarding(true);
    const pid_t pid = ::fork();
    if (pid < 0) {
        if (forward) install_forwarding(false);
        return {127, false, false, true, std::string("fork failed: ") + std::strerror(errno)};
    }
    if (pid == 0) {
        if (forward) install_forwarding(false);
        exec_child(argv, extra_env, report[1]);
    }
    ::setpgid(pid, pid);  // also here: no race with a signal arriving before the child ran setpgid
    if (forward) {
        child_group = pid;
        if (pending_signal != 0) ::kill(-pid, pending_signal);
    }
    ::close(report[1]);
    const std::string failed = exec_error(report[0], argv[0]);

    bool timed_out = false;
    std::optional<std::chrono::steady_clock::time_point> kill_at;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        const auto now = std::chrono::steady_clock::now();
        const bool stop = (policy.deadline && now >= *policy.deadline) || (policy.stop_requested && policy.stop_requested());
        if (stop && !kill_at) {
            timed_out = policy.deadline && now >= *policy.deadline;
            ::kill(-pid, SIGTERM);
            kill_at = now + policy.kill_grace;
        } else if (kill_at && now >= *kill_at) {
            ::kill(-pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    if (forward) {
        install_forwarding(false);
        child_group = 0;
    }
    if (!failed.empty()) return {127, false, false, true, failed};
    child_exit result = decode(status);
    result.timed_out = timed_out;
    return result;
}

}  // namespace shedlock::cli
