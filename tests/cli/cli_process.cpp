#include "cli_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace shedlock::test {
namespace {

/// The argv of `shedlock args...`, built in the parent: between fork and exec the child may only
/// make async-signal-safe calls. An allocation there deadlocked (a child stuck in a futex, the
/// test hung) when another thread of the test held the allocator's lock at the fork.
/// The binary under test: this build's, or SHEDLOCK_TEST_CLI (to show that a regression test
/// fails against an older build).
const char* cli_path() {
    const char* other = std::getenv("SHEDLOCK_TEST_CLI");
    return other != nullptr && *other != '\0' ? other : SHEDLOCK_CLI_PATH;
}

std::vector<char*> cli_argv(const std::vector<std::string>& args) {
    std::vector<char*> argv{const_cast<char*>(cli_path())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    return argv;
}

[[noreturn]] void exec_cli(char* const* argv) {
    ::execv(argv[0], argv);
    ::_exit(127);
}

void drain(int out_fd, int err_fd, cli_result& r) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open = 2;
    char buf[4096];
    while (open > 0 && ::poll(fds, 2, -1) > 0) {
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                fds[i].fd = -1;
                --open;
            } else {
                (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
            }
        }
    }
}

}  // namespace

cli_result run_cli(const std::vector<std::string>& args) {
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0) return {};
    const auto argv = cli_argv(args);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::close(out[0]);
        ::close(err[0]);
        exec_cli(argv.data());
    }
    ::close(out[1]);
    ::close(err[1]);
    cli_result r;
    drain(out[0], err[0], r);
    ::close(out[0]);
    ::close(err[0]);
    r.status = wait_cli(pid);
    return r;
}

pid_t start_cli(const std::vector<std::string>& args) {
    const auto argv = cli_argv(args);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, 1);
        exec_cli(argv.data());
    }
    return pid;
}

int exit_status_of(int wait_status) {
    return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

int wait_cli(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return exit_status_of(status);
}

bool wait_for_file(const std::string& path, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (std::filesystem::exists(path) && std::filesystem::file_size(path) > 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return false;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace shedlock::test
