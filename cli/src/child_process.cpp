#include "child_process.hpp"

#include "child_exec.hpp"
#include "terminal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

namespace shedlock::cli {
namespace {

volatile sig_atomic_t child_group = 0;
volatile sig_atomic_t pending_signal = 0;  // arrived before the child's group existed
constexpr int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/// Sends `sig` to the command's group, then SIGCONT: a stopped command would otherwise keep the
/// signal pending and the wrapper would wait for it forever.
void signal_group(pid_t group, int sig) {
    ::kill(-group, sig);
    ::kill(-group, SIGCONT);
}

extern "C" void forward_signal(int sig) {
    const int saved = errno;
    if (child_group > 0) signal_group(child_group, sig);
    else pending_signal = sig;
    errno = saved;
}

/// `restart`: system calls restart after the handler (the stores' blocking reads while a
/// noted signal is held); while the command runs, the waiter's poll must see EINTR instead.
void install_forwarding(bool on, bool restart = false) {
    struct sigaction action {};
    action.sa_handler = on ? forward_signal : SIG_DFL;
    action.sa_flags = restart ? SA_RESTART : 0;
    sigemptyset(&action.sa_mask);
    for (int sig : forwarded) ::sigaction(sig, &action, nullptr);
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

/// A descriptor that becomes readable when the process exits (Linux >= 5.3), or -1 where the
/// kernel has none; then the wait falls back to sleeping between checks.
class exit_descriptor {
public:
    explicit exit_descriptor(pid_t pid) : fd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
    exit_descriptor(const exit_descriptor&) = delete;
    exit_descriptor& operator=(const exit_descriptor&) = delete;
    ~exit_descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    /// Returns when the process exited or `limit` passed, whichever is first.
    void wait_at_most(std::chrono::milliseconds limit) const {
        if (fd_ < 0) {
            std::this_thread::sleep_for(limit);
            return;
        }
        pollfd p{fd_, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(limit.count()));  // EINTR (a forwarded signal): check again
    }

private:
    int fd_;
};

/// Waits for the command to exit, stopping it on deadline or request (TERM, then KILL after the
/// grace). The exit wakes the wait at once (pidfd); the checks of the deadline, stop_requested and
/// a terminal stop run every `check_every` meanwhile. A command stopped from the terminal
/// (Ctrl-Z) stops the wrapper too, as a shell job would, and both continue together.
struct waiter {
    static constexpr std::chrono::milliseconds check_every{20};
    pid_t pid;
    const wait_policy& policy;
    foreground_terminal& terminal;
    bool timed_out = false;
    std::optional<std::chrono::steady_clock::time_point> kill_at;

    int wait() {
        const exit_descriptor exited(pid);
        int status = 0;
        while (true) {
            const pid_t got = ::waitpid(pid, &status, WNOHANG | WUNTRACED);
            if (got == pid && WIFSTOPPED(status)) {
                terminal.suspend_with(pid);
                continue;
            }
            if (got == pid || (got < 0 && errno != EINTR)) return status;
            enforce(std::chrono::steady_clock::now());
            exited.wait_at_most(check_every);
        }
    }

    void enforce(std::chrono::steady_clock::time_point now) {
        const bool past_deadline = policy.deadline && now >= *policy.deadline;
        const bool stop = past_deadline || (policy.stop_requested && policy.stop_requested());
        if (stop && !kill_at) {
            timed_out = past_deadline;
            signal_group(pid, SIGTERM);
            kill_at = now + policy.kill_grace;
        } else if (kill_at && now >= *kill_at) {
            ::kill(-pid, SIGKILL);
        }
    }
};

}  // namespace

child_exit run_child(const child_command& command, const wait_policy& policy) {
    const exec_image image(command);  // built before fork: the child only calls async-signal-safe functions
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return {127, false, false, true, std::strerror(errno)};
    const bool forward = policy.forward_signals;
    foreground_terminal terminal(policy.take_terminal);
    pending_signal = 0;
    if (forward) install_forwarding(true);
    const pid_t pid = ::fork();
    if (pid < 0) {
        if (forward) install_forwarding(false);
        return {127, false, false, true, std::string("fork failed: ") + std::strerror(errno)};
    }
    if (pid == 0) image.exec_in_child(report[1], terminal.active());
    ::setpgid(pid, pid);  // also here: no race with a signal arriving before the child ran setpgid
    terminal.give_to(pid);
    if (forward) {
        child_group = pid;
        if (pending_signal != 0) signal_group(pid, pending_signal);
    }
    ::close(report[1]);
    const std::string failed = exec_error(report[0], command.argv[0]);

    waiter w{pid, policy, terminal, false, std::nullopt};
    const int status = w.wait();
    terminal.take_back();
    if (forward && policy.hold_signals_after_exit) {
        pending_signal = 0;  // from now on a signal is noted (child_group 0), not passed on
        child_group = 0;
        install_forwarding(true, true);
    } else if (forward) {
        install_forwarding(false);
        child_group = 0;
    }
    if (!failed.empty()) return {127, false, false, true, failed};
    child_exit result = decode(status);
    result.timed_out = w.timed_out;
    return result;
}

int end_held_signals() {
    install_forwarding(false);
    const int noted = pending_signal;
    pending_signal = 0;
    return noted;
}

}  // namespace shedlock::cli
