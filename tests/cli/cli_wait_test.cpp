// End-to-end: `shedlock run --wait` with real processes on every backend of the CLI tests.
#include "cli_backends.hpp"
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using namespace shedlock::test;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

/// One run of the waited-for command, as it recorded itself (realtime, ms since the epoch).
struct wait_run {
    long long begin = 0;
    long long end = 0;
};

long long wall_ms() {
    return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// The command: appends "B <id> <ms>", works 1 s, appends "E <id> <ms>"; each append under
/// flock(1), so lines of concurrent writers never interleave.
std::vector<std::string> recording_command(const std::string& log, int id) {
    const std::string stamp = "flock " + log + " sh -c 'echo $0 " + std::to_string(id) + " $(date +%s%3N) >> " + log + "'";
    return {"sh", "-c", stamp + " B; sleep 1; " + stamp + " E"};
}

std::vector<wait_run> read_runs(const std::string& log, int processes) {
    std::vector<wait_run> runs(static_cast<std::size_t>(processes));
    std::istringstream lines(read_file(log));
    std::string kind;
    int id = 0;
    long long at = 0;
    while (lines >> kind >> id >> at) {
        REQUIRE(id >= 0);
        REQUIRE(id < processes);
        (kind == "B" ? runs[static_cast<std::size_t>(id)].begin : runs[static_cast<std::size_t>(id)].end) = at;
    }
    return runs;
}

std::vector<std::string> wait_args(const std::string& uri, const std::string& name, const std::string& wait,
                                   std::vector<std::string> command) {
    std::vector<std::string> args{"run", "-p", uri, "-n", name, "--at-most", "PT2M", "--wait", wait, "--"};
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

/// The docs' bound (docs/crontab.md, "Waiting for the lock") for a waiter among `processes`
/// started together: every other run's hold, plus one hand-over per run. A hand-over is at most
/// max_pause (100 ms) of polling plus the holder's exit, release and the next command's start;
/// 1 s of allowance each keeps a loaded two-core test machine inside it.
long long bound_ms(const std::vector<wait_run>& runs, std::size_t self) {
    long long others = 0;
    for (std::size_t j = 0; j < runs.size(); ++j)
        if (j != self) others += runs[j].end - runs[j].begin;
    return others + static_cast<long long>(runs.size() - 1) * 1000;
}

void eight_waiters_run_one_at_a_time(const std::string& uri) {
    constexpr int processes = 8;
    const std::string log = scratch_dir() + "/wait-runs-" + std::to_string(::getpid()) + "-" + std::to_string(wall_ms());
    std::vector<pid_t> pids;
    std::vector<long long> spawned;
    for (int i = 0; i < processes; ++i) {
        spawned.push_back(wall_ms());
        pids.push_back(start_cli(wait_args(uri, "wait-eight", "60s", recording_command(log, i))));
    }
    for (auto pid : pids) CHECK(wait_cli(pid) == 0);  // every process ran its command
    auto runs = read_runs(log, processes);
    std::vector<std::size_t> order(runs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return runs[a].begin < runs[b].begin; });
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& run = runs[order[k]];
        INFO("run " << order[k] << " began " << run.begin << " ended " << run.end);
        REQUIRE(run.begin > 0);
        REQUIRE(run.end >= run.begin);
        if (k > 0) CHECK(run.begin >= runs[order[k - 1]].end);  // no two commands overlap
        const long long waited = run.begin - spawned[order[k]];
        INFO("waited " << waited << " ms, bound " << bound_ms(runs, order[k]) << " ms");
        CHECK(waited <= bound_ms(runs, order[k]));
    }
    std::vector<long long> handovers;
    for (std::size_t k = 1; k < order.size(); ++k) handovers.push_back(runs[order[k]].begin - runs[order[k - 1]].end);
    std::sort(handovers.begin(), handovers.end());
    WARN(uri.substr(0, uri.find(':')) << ": end of one command to the start of the next: median " << handovers[3]
                                      << " ms, range " << handovers.front() << ".." << handovers.back() << " ms");
}

void short_wait_gives_held(const std::string& uri) {
    const std::string started = scratch_dir() + "/wait-holder-" + std::to_string(::getpid());
    const std::string ran = started + "-second";
    std::filesystem::remove(started);
    const pid_t holder = start_cli(wait_args(uri, "wait-short", "0s", {"sh", "-c", "echo x > " + started + "; sleep 4"}));
    REQUIRE(wait_for_file(started, 20));
    const auto second = run_cli(wait_args(uri, "wait-short", "1s", {"sh", "-c", "echo x > " + ran}));
    CHECK(second.status == 75);
    CHECK_THAT(second.err, Contains("held elsewhere"));
    CHECK_FALSE(std::filesystem::exists(ran));
    CHECK(wait_cli(holder) == 0);
}

/// A SQLite lock table that exists, so a run that gets past its flags would run its command.
std::string ready_sqlite(const std::string& file) {
    const std::string uri = "sqlite:" + scratch_dir() + "/" + file;
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    return uri;
}

}  // namespace

TEST_CASE("cli run --wait: 8 processes on one name all run, one at a time, each within the bound", "[cli][wait]") {
    for (const auto& uri : backend_uris("cli_wait_eight")) {
        INFO(uri);
        eight_waiters_run_one_at_a_time(uri);
    }
}

TEST_CASE("cli run --wait shorter than the holder's run exits with the held status 75", "[cli][wait]") {
    for (const auto& uri : backend_uris("cli_wait_short")) {
        INFO(uri);
        short_wait_gives_held(uri);
    }
}

TEST_CASE("cli run --config takes a task table's wait_for_lock as its --wait", "[cli][wait]") {
    const std::string dir = scratch_dir();
    const std::string uri = "sqlite:" + dir + "/wait-config.db";
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    const std::string started = dir + "/wait-config-holder-" + std::to_string(::getpid());
    const std::string ran = started + "-second";
    std::filesystem::remove(started);
    const std::string config = dir + "/wait-config.toml";
    {
        std::ofstream out(config);
        out << "[shedlock]\nprovider = \"" << uri << "\"\n[tasks.import]\nlock_at_most_for = \"PT2M\"\n"
            << "wait_for_lock = \"60s\"\ncommand = [\"sh\", \"-c\", \"echo x > " << ran << "\"]\n";
    }
    const pid_t holder = start_cli(wait_args(uri, "import", "0s", {"sh", "-c", "echo x > " + started + "; sleep 2"}));
    REQUIRE(wait_for_file(started, 20));
    const auto waiter = run_cli({"run", "--config", config, "--task", "import"});
    INFO(waiter.err);
    CHECK(waiter.status == 0);  // waited for the holder instead of exiting 75
    CHECK(std::filesystem::exists(ran));
    CHECK(wait_cli(holder) == 0);
}

TEST_CASE("cli run --wait: a negative or unparsable wait is a configuration error naming it", "[cli][wait]") {
    const std::string uri = "sqlite:" + scratch_dir() + "/wait-input.db";
    for (const std::string bad : {"-5s", "soon", "30"}) {
        const auto r = run_cli(wait_args(uri, "wait-input", bad, {"true"}));
        INFO(bad << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains(bad));
    }
}

TEST_CASE("cli run --wait 0 names the fix 0s, and 0s and PT0S are one attempt", "[cli][wait]") {
    const std::string uri = ready_sqlite("wait-zero.db");
    for (const std::string zero : {"0s", "PT0S"}) {
        const auto r = run_cli(wait_args(uri, "wait-zero", zero, {"true"}));
        INFO(zero << ": " << r.err);
        CHECK(r.status == 0);
    }
    const auto bare = run_cli(wait_args(uri, "wait-zero", "0", {"true"}));
    INFO(bare.err);
    CHECK(bare.status == 78);
    CHECK_THAT(bare.err, Contains("--wait 0s"));  // the doc's "0s or more": a bare number needs its unit
}

TEST_CASE("cli run: an empty --wait is a configuration error naming the flag, also with --config", "[cli][wait]") {
    const std::string dir = scratch_dir();
    const std::string uri = ready_sqlite("wait-empty.db");
    const std::string ran = dir + "/wait-empty-ran-" + std::to_string(::getpid());
    std::filesystem::remove(ran);
    const std::string config = dir + "/wait-empty.toml";
    {
        std::ofstream out(config);
        out << "[shedlock]\nprovider = \"" << uri << "\"\n[tasks.import]\nlock_at_most_for = \"PT2M\"\n"
            << "wait_for_lock = \"60s\"\ncommand = [\"sh\", \"-c\", \"echo x > " << ran << "\"]\n";
    }
    const std::vector<std::vector<std::string>> empty_waits{
        wait_args(uri, "wait-empty", "", {"sh", "-c", "echo x > " + ran}),
        {"run", "-p", uri, "-n", "wait-empty", "--at-most", "PT2M", "--wait=", "--", "sh", "-c", "echo x > " + ran},
        {"run", "--config", config, "--task", "import", "--wait", ""},
        {"run", "--config", config, "--task", "import", "--wait="}};
    for (const auto& args : empty_waits) {
        const auto r = run_cli(args);
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("--wait is empty") && Contains("--wait 30s"));
        CHECK_FALSE(std::filesystem::exists(ran));  // refused before the command could run
    }
}
