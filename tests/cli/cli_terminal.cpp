#include "cli_terminal.hpp"

#include "cli_process.hpp"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace shedlock::test {
namespace {

void read_available(int fd, std::string& into, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return;
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) into.append(buf, static_cast<std::size_t>(n));
}

}  // namespace

terminal_result run_cli_on_terminal(const std::vector<std::string>& args, const std::string& input, double seconds) {
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        std::vector<char*> argv{const_cast<char*>(SHEDLOCK_CLI_PATH)};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(SHEDLOCK_CLI_PATH, argv.data());
        ::_exit(127);
    }
    terminal_result r;
    if (pid < 0) return r;
    (void)!::write(master, input.data(), input.size());
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (std::chrono::steady_clock::now() < end) {
        read_available(master, r.screen, 50);
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            r.finished = true;
            r.status = exit_status_of(status);
            read_available(master, r.screen, 50);
            break;
        }
    }
    if (!r.finished) {
        ::kill(-pid, SIGKILL);  // forkpty made it a session (and group) leader
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
    }
    ::close(master);
    return r;
}

}  // namespace shedlock::test
