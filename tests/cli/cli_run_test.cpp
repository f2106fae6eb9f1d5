// End-to-end: `shedlock run` as a crontab user drives it, on a real SQLite file.
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <thread>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string db_uri(const std::string& file) {
    static bool created = false;
    const std::string uri = "sqlite:" + scratch_dir() + "/" + file;
    if (!created) {
        run_cli({"schema", "apply", "-p", uri});
        created = true;
    }
    return uri;
}

std::vector<std::string> run_args(const std::string& uri, const std::string& name, std::vector<std::string> extra,
                                  std::vector<std::string> command) {
    std::vector<std::string> args{"run", "-p", uri, "-n", name, "--at-most", "PT1M"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

}  // namespace

TEST_CASE("cli run: the command's exit status and environment pass through", "[cli]") {
    const auto uri = db_uri("run.db");
    auto r = run_cli(run_args(uri, "status", {}, {"sh", "-c", "echo name=$SHEDLOCK_LOCK_NAME token=$SHEDLOCK_FENCING_TOKEN; exit 3"}));
    CHECK(r.status == 3);
    CHECK_THAT(r.out, Contains("name=status token=1"));
    CHECK(run_cli(run_args(uri, "status", {}, {"true"})).status == 0);
}

TEST_CASE("cli run: two hosts with the same name, only one runs", "[cli]") {
    const auto uri = db_uri("run.db");
    const std::string marker = scratch_dir() + "/first-started";
    const pid_t first = start_cli(run_args(uri, "contended", {}, {"sh", "-c", "echo x > " + marker + "; sleep 2"}));
    REQUIRE(wait_for_file(marker, 10));
    const std::string second_marker = scratch_dir() + "/second-ran";
    auto second = run_cli(run_args(uri, "contended", {}, {"sh", "-c", "echo x > " + second_marker}));
    CHECK(second.status == 75);
    CHECK_THAT(second.err, Contains("held elsewhere"));
    CHECK_FALSE(std::filesystem::exists(second_marker));
    CHECK(run_cli(run_args(uri, "contended", {"--skipped-exit", "0"}, {"true"})).status == 0);
    CHECK(wait_cli(first) == 0);
    CHECK(run_cli(run_args(uri, "contended", {}, {"true"})).status == 0);  // released when the first exited
}

TEST_CASE("cli run: documented exit statuses for bad input and failures", "[cli]") {
    const auto uri = db_uri("run.db");
    CHECK(run_cli(run_args(uri, "bad", {"--at-least", "5x"}, {"true"})).status == 78);
    auto bare = run_cli({"run", "-p", uri, "-n", "bad", "--at-most", "60000", "--", "true"});
    CHECK(bare.status == 78);
    CHECK_THAT(bare.err, Contains("\"60000\"") && Contains("PT30S"));
    CHECK(run_cli(run_args(uri, std::string(65, 'x'), {}, {"true"})).status == 78);
    CHECK(run_cli(run_args("sqlite:" + scratch_dir() + "/no/such/dir/x.db", "n", {}, {"true"})).status == 69);
    CHECK(run_cli(run_args("postgresql://u:hunter2@127.0.0.1:9/db?bogus=1", "n", {}, {"true"})).status == 78);
    auto missing = run_cli(run_args(uri, "exec", {}, {"/definitely/not/here"}));
    CHECK(missing.status == 71);
    CHECK_THAT(missing.err, Contains("/definitely/not/here"));
    CHECK(run_cli({"run", "-p", uri, "--", "true"}).status == 64);  // --name missing
    auto timed = run_cli(run_args(uri, "timeout", {"--timeout", "300ms"}, {"sleep", "5"}));
    CHECK(timed.status == 124);
}

TEST_CASE("cli run: a child killed by a signal releases the lock", "[cli]") {
    const auto uri = db_uri("run.db");
    const std::string pid_file = scratch_dir() + "/child.pid";
    const pid_t wrapper = start_cli(run_args(uri, "killed", {}, {"sh", "-c", "echo $$ > " + pid_file + "; exec sleep 30"}));
    REQUIRE(wait_for_file(pid_file, 10));
    const pid_t child = std::stoi(read_file(pid_file));
    ::kill(child, SIGKILL);
    CHECK(wait_cli(wrapper) == 128 + SIGKILL);
    CHECK(run_cli(run_args(uri, "killed", {}, {"true"})).status == 0);
}

TEST_CASE("cli run: SIGTERM to shedlock reaches the command, the lock is released", "[cli]") {
    const auto uri = db_uri("run.db");
    const std::string ready = scratch_dir() + "/trap-ready";
    const std::string got = scratch_dir() + "/got-term";
    const pid_t wrapper = start_cli(run_args(
        uri, "signalled", {},
        {"sh", "-c", "trap 'echo term > " + got + "; exit 0' TERM; echo x > " + ready + "; while :; do sleep 0.05; done"}));
    REQUIRE(wait_for_file(ready, 10));
    ::kill(wrapper, SIGTERM);
    CHECK(wait_cli(wrapper) == 0);
    CHECK(wait_for_file(got, 5));
    CHECK(run_cli(run_args(uri, "signalled", {}, {"true"})).status == 0);
}

TEST_CASE("cli run: --keep-alive holds the lock past --at-most while the command runs", "[cli]") {
    const auto uri = db_uri("run.db");
    const std::string marker = scratch_dir() + "/long-started";
    // A 2 s lease (not 1 s): the keep-alive must extend it under a loaded CI machine too, where
    // the 1 s lease was seen to run out between two extensions.
    const pid_t first = start_cli({"run", "-p", uri, "-n", "long", "--at-most", "2s", "--keep-alive", "--", "sh", "-c",
                                   "echo x > " + marker + "; sleep 5"});
    REQUIRE(wait_for_file(marker, 10));
    // Tries for 3.5 s: well past the 2 s lease, and by the clock (not a count) inside the 5 s command.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds{3500};
    int intruders = 0;
    int tries = 0;
    for (; std::chrono::steady_clock::now() < until; ++tries) {
        if (run_cli(run_args(uri, "long", {}, {"true"})).status != 75) ++intruders;
        std::this_thread::sleep_for(std::chrono::milliseconds{250});
    }
    CHECK(tries >= 3);
    CHECK(intruders == 0);
    CHECK(wait_cli(first) == 0);
}
