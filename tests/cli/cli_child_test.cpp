// End-to-end: what the command of `shedlock run` inherits (ARCHITECTURE §8), on every backend:
// descriptors, environment, signal dispositions, the terminal; and how the wrapper treats a
// stopped command and a failed release.
#include "cli_backends.hpp"
#include "cli_process.hpp"
#include "cli_terminal.hpp"

#include "process_freeze.hpp"
#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> run_args(const std::string& uri, const std::string& name, std::vector<std::string> command) {
    std::vector<std::string> args{"run", "-n", name, "--at-most", "PT1M"};
    if (!uri.empty()) args.insert(args.end(), {"-p", uri});
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

/// Waits up to `seconds` for `pid` to exit; kills it and returns -1 when it did not.
int wait_at_most(pid_t pid, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (std::chrono::steady_clock::now() < end) {
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
}

}  // namespace

TEST_CASE("cli run: the command gets descriptors 0-2 only, on every backend", "[cli][child]") {
    // Regression: the logged-in MySQL and Redis sockets reached the command as fd 3; a child
    // read the Redis password over it with CONFIG GET requirepass.
    for (const auto& uri : backend_uris("cli_fds")) {
        // `; true` keeps the shell from exec'ing ls, so ls lists the shell's descriptors.
        auto r = run_cli(run_args(uri, "fds", {"sh", "-c", "ls /proc/$$/fd; true"}));
        INFO(uri << "\n" << r.err);
        CHECK(r.status == 0);
        CHECK(r.out == "0\n1\n2\n");
    }
}

TEST_CASE("cli run: SHEDLOCK_PROVIDER (with its password) is not in the command's environment", "[cli][child]") {
    for (const auto& uri : backend_uris("cli_env")) {
        ::setenv("SHEDLOCK_PROVIDER", uri.c_str(), 1);
        auto r = run_cli(run_args("", "env", {"sh", "-c", "echo provider=${SHEDLOCK_PROVIDER-unset} name=$SHEDLOCK_LOCK_NAME"}));
        ::unsetenv("SHEDLOCK_PROVIDER");
        INFO(uri << "\n" << r.err);
        CHECK(r.status == 0);
        CHECK(r.out == "provider=unset name=env\n");
    }
}

TEST_CASE("cli run: the command starts with default signal dispositions, on every backend", "[cli][child]") {
    // Regression: on the MySQL backend the command inherited SIGPIPE ignored (`yes | head -1`
    // exited 1 instead of 141). A shell that starts with a signal ignored cannot undo it.
    for (const auto& uri : backend_uris("cli_signals")) {
        auto r = run_cli(run_args(uri, "sigpipe", {"sh", "-c", "kill -PIPE $$; echo survived"}));
        INFO(uri << "\n" << r.out << r.err);
        CHECK(r.status == 128 + SIGPIPE);
        CHECK_THAT(r.out, !Contains("survived"));
    }
}

TEST_CASE("cli run: from a terminal, a command that reads the terminal gets its input", "[cli][child][terminal]") {
    // Regression: the command ran in a process group of its own without the terminal, was
    // stopped by SIGTTIN on its first read, and the wrapper waited forever.
    const std::string uri = "sqlite:" + scratch_dir() + "/tty.db?create_schema=true";
    auto r = run_cli_on_terminal(run_args(uri, "tty", {"sh", "-c", "read line; echo got:$line"}), "hello\n", 15);
    INFO(r.screen);
    REQUIRE(r.finished);
    CHECK(r.status == 0);
    CHECK_THAT(r.screen, Contains("got:hello"));
}

TEST_CASE("cli run: SIGTERM ends a command that was stopped", "[cli][child]") {
    // Regression: the TERM forwarded to a stopped command stayed pending, so the wrapper hung.
    const std::string dir = scratch_dir();
    const std::string uri = "sqlite:" + dir + "/stopped.db?create_schema=true";
    const std::string pid_file = dir + "/stopped.pid";
    const pid_t cli = start_cli(run_args(uri, "stopped", {"sh", "-c", "echo $$ > " + pid_file + "; exec sleep 30"}));
    REQUIRE(wait_for_file(pid_file, 10));
    const pid_t command = std::stoi(read_file(pid_file));
    REQUIRE_NOTHROW(stop_processes({command}));
    ::kill(cli, SIGTERM);
    CHECK(wait_at_most(cli, 30) == 128 + SIGTERM);  // does not hang: generous for a loaded machine
    ::kill(command, SIGKILL);
}

TEST_CASE("cli run: a failed release is reported, not silent", "[cli][child]") {
    // Regression: the command succeeded, nothing was said, and the lock stayed until lock_until.
    const std::string file = scratch_dir() + "/release.db";
    const std::string uri = "sqlite:" + file + "?table=release_locks&create_schema=true";
    auto r = run_cli(run_args(uri, "release", {"sqlite3", file, "DROP TABLE release_locks"}));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err, Contains("releasing lock \"release\" failed") && Contains("stays held until its lock_until"));
}

TEST_CASE("cli run: --keep-alive keeps --at-least", "[cli][child]") {
    // Regression: the first keep-alive extension dropped lock_at_least_for, so the lock was free
    // as soon as the command ended.
    const std::string uri = "sqlite:" + scratch_dir() + "/keep.db?create_schema=true";
    auto first = run_cli({"run", "-p", uri, "-n", "keep", "--at-most", "4s", "--at-least", "3s", "--keep-alive", "--", "sleep",
                          "2.3"});
    REQUIRE(first.status == 0);
    auto second = run_cli({"run", "-p", uri, "-n", "keep", "--at-most", "4s", "--", "true"});  // at ~2.35 s of 3 s
    INFO(second.err);
    CHECK(second.status == 75);
}
