#include "planted_child.hpp"

#include "chaos_clock.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace shedlock::chaos {
namespace {

constexpr std::int64_t poll_us = 10'000;
constexpr std::int64_t kill_grace_us = 10'000'000;
constexpr std::int64_t longest_wait_us = 3'600'000'000;  // an hour: beyond any chaos attempt

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

pid_t start_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
    std::vector<std::string> args = argv;
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    auto argp = pointers(args);
    auto envp = pointers(env);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    // In the child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(143);  // the worker died before prctl took effect
    ::execve(argp[0], argp.data(), envp.data());
    ::_exit(127);
}

int wait_command(pid_t pid, std::chrono::milliseconds interval, const std::function<bool()>& keep_alive, bool& lost) {
    const std::int64_t start = now_us();
    std::int64_t next_extend = interval.count() > 0 ? start + ms_to_us(interval.count()) : -1;
    std::int64_t kill_at = -1;
    int status = 0;
    // Bounded in time: an hour at most, then the command is killed.
    for (;;) {
        // The lease first: after a SIGSTOP both this and the command resume at once, and an
        // overdue extension must happen before the command's exit is noticed.
        if (next_extend >= 0 && now_us() >= next_extend && !lost) {
            if (keep_alive()) {
                next_extend = now_us() + ms_to_us(interval.count());
            } else {
                lost = true;
                ::kill(-pid, SIGTERM);
                kill_at = now_us() + kill_grace_us;
            }
        }
        if (::waitpid(pid, &status, WNOHANG) == pid) break;
        if (kill_at >= 0 && now_us() >= kill_at) ::kill(-pid, SIGKILL);
        if (now_us() - start > longest_wait_us) ::kill(-pid, SIGKILL), kill_at = now_us();
        sleep_us(poll_us);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace shedlock::chaos
