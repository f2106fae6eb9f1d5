// End-to-end: `shedlock daemon` as a distributed cron, and config-file errors as a user meets them.
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string write_config(const std::string& name, const std::string& text) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

/// The string value of `"key": "..."` in `line`, or "".
std::string json_field(const std::string& line, const std::string& key) {
    const std::string marker = "\"" + key + "\": \"";
    const auto start = line.find(marker);
    if (start == std::string::npos) return "";
    const auto from = start + marker.size();
    return line.substr(from, line.find('"', from) - from);
}

/// lock name -> outcomes, from `shedlock runs --json` (one JSON object per line), for the lock
/// names that start with `prefix` (the server tables outlive one test run; earlier runs' records
/// carry another prefix).
std::map<std::string, std::vector<std::string>> outcomes_by_lock(const std::string& json, const std::string& prefix) {
    std::map<std::string, std::vector<std::string>> out;
    std::istringstream lines(json);
    for (std::string line; std::getline(lines, line);) {
        const std::string lock = json_field(line, "lock_name");
        if (lock.rfind(prefix, 0) == 0) out[lock].push_back(json_field(line, "outcome"));
    }
    return out;
}


/// Three daemons on one config against `uri`: every per-second firing runs exactly once.
void check_daemon_cluster(const std::string& uri, const std::string& label) {
    const std::string out = scratch_dir() + "/ticks-" + label + ".txt";
    const std::string lock_prefix = "tick-" + label + "-" + std::to_string(::getpid()) + ":";
    const auto config = write_config("daemon-" + label + ".toml", R"([shedlock]
provider = ")" + uri + R"("
default_lock_at_most_for = "PT1M"
default_lock_at_least_for = "500ms"

[tasks.tick]
cron = "* * * * * *"
lock_name = ")" + lock_prefix + R"({datetime}"
command = ["sh", "-c", "echo {lock_name} >> )" + out + R"("]
)");
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    std::vector<pid_t> daemons;
    for (int i = 0; i < 3; ++i) daemons.push_back(start_cli({"daemon", "-c", config}));
    // Stop half-way between two firings: a daemon stopping while a command runs sends it SIGTERM
    // (recorded as failed), which is right for the daemon but not what this test checks.
    std::this_thread::sleep_for(std::chrono::seconds{5});
    const auto now = std::chrono::system_clock::now();
    std::this_thread::sleep_until(std::chrono::ceil<std::chrono::seconds>(now) + std::chrono::milliseconds{500});
    for (pid_t pid : daemons) ::kill(pid, SIGTERM);
    for (pid_t pid : daemons) CHECK(wait_cli(pid) == 0);

    const auto runs = run_cli({"runs", "-c", config, "--task", "tick", "--json", "-n", "1000"});
    REQUIRE(runs.status == 0);
    const auto by_lock = outcomes_by_lock(runs.out, lock_prefix);
    int firings_seen_by_all = 0;
    for (const auto& [lock, outcomes] : by_lock) {
        INFO(uri << " " << lock);
        CHECK(std::count(outcomes.begin(), outcomes.end(), "succeeded") == 1);  // never twice, never lost
        if (outcomes.size() == 3) {
            ++firings_seen_by_all;
            CHECK(std::count(outcomes.begin(), outcomes.end(), "skipped_locked") == 2);
        }
    }
    CHECK(firings_seen_by_all >= 3);
    std::ifstream lines(out);
    std::map<std::string, int> executions;
    for (std::string line; std::getline(lines, line);) ++executions[line];
    for (const auto& [lock, n] : executions) CHECK(n == 1);
    CHECK(executions.size() == by_lock.size());
}

std::string server_uri(const char* var, const std::string& query) {
    const char* uri = std::getenv(var);
    INFO(var << " is not set: run the tests through scripts/test.sh, which starts the servers");
    REQUIRE(uri != nullptr);
    return std::string(uri) + query;
}

}  // namespace

TEST_CASE("cli daemon: 3 processes on one config run every firing exactly once (sqlite)", "[cli][daemon]") {
    check_daemon_cluster("sqlite:" + scratch_dir() + "/daemon.db", "sqlite");
}

TEST_CASE("cli daemon: 3 processes on one config run every firing exactly once (postgres)", "[cli][daemon]") {
    check_daemon_cluster(server_uri("SHEDLOCK_TEST_POSTGRES_URI", "?table=cli_daemon&runs_table=cli_daemon_runs"), "pg");
}

TEST_CASE("cli daemon: 3 processes on one config run every firing exactly once (mysql)", "[cli][daemon]") {
    check_daemon_cluster(server_uri("SHEDLOCK_TEST_MYSQL_URI", "?table=cli_daemon&runs_table=cli_daemon_runs"), "mysql");
}

TEST_CASE("cli daemon: 3 processes on one config run every firing exactly once (redis)", "[cli][daemon]") {
    check_daemon_cluster(server_uri("SHEDLOCK_TEST_REDIS_URI", "?prefix=cli-daemon-" + std::to_string(::getpid())), "redis");
}

TEST_CASE("cli daemon: SIGTERM stops a running command within grace and records it", "[cli][daemon]") {
    const std::string db = scratch_dir() + "/stop.db";
    const std::string started = scratch_dir() + "/daemon-long-started";  // not cli_run_test's marker: one process may run both
    const auto config = write_config("stop.toml", R"([shedlock]
provider = "sqlite:)" + db + R"("
[tasks.long]
fixed_rate = "PT1H"
lock_at_most_for = "PT10M"
command = ["sh", "-c", "echo x > )" + started + R"(; exec sleep 60"]
)");
    REQUIRE(run_cli({"schema", "apply", "-p", "sqlite:" + db}).status == 0);
    // A grace far beyond any stall of a loaded machine: a daemon that waited it out (instead of
    // stopping the command at once) is told apart without a speed bound.
    const pid_t daemon = start_cli({"daemon", "-c", config, "--grace", "60s"});
    REQUIRE(wait_for_file(started, 10));
    const auto begin = std::chrono::steady_clock::now();
    ::kill(daemon, SIGTERM);
    CHECK(wait_cli(daemon) == 0);
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds{30});
    auto runs = run_cli({"runs", "-c", config, "--json"});
    CHECK_THAT(runs.out, Contains("\"task\": \"long\"") && Contains("\"outcome\": \"failed\"") &&
                             Contains("killed by signal 15 (the daemon stopped it: daemon shutting down)"));
    CHECK(run_cli({"run", "-c", config, "-t", "long", "--", "true"}).status == 0);  // lock released
}

TEST_CASE("cli daemon: a command whose lock is lost under keep-alive is stopped and recorded", "[cli][daemon]") {
    const std::string uri = "sqlite:" + scratch_dir() + "/lost.db";
    const std::string started = scratch_dir() + "/lost-started";
    const auto config = write_config("lost.toml", R"([shedlock]
provider = ")" + uri + R"("
[tasks.guarded]
fixed_rate = "PT1H"
lock_at_most_for = "2s"
keep_alive = true
command = ["sh", "-c", "echo x > )" + started + R"(; exec sleep 60"]
)");
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    const pid_t daemon = start_cli({"daemon", "-c", config});
    REQUIRE(wait_for_file(started, 10));
    // An operator frees the lock: the next extension (every 1 s) finds it gone.
    REQUIRE(run_cli({"locks", "release", "guarded", "-p", uri, "--force", "--yes"}).status == 0);
    cli_result runs;
    for (int i = 0; i < 100 && runs.out.find("\"outcome\"") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        runs = run_cli({"runs", "-c", config, "--json"});
    }
    ::kill(daemon, SIGTERM);
    CHECK(wait_cli(daemon) == 0);
    INFO(runs.out);
    CHECK_THAT(runs.out, Contains("\"outcome\": \"failed\"") && Contains("\"lock_lost\": true") &&
                             Contains("(the daemon stopped it: lock lost, keep-alive extension failed)"));
}

TEST_CASE("cli config errors name the file and the line", "[cli][config]") {
    const auto misspelled = write_config("misspelled.toml", "[shedlock]\nprovider = \"memory:\"\n\n[tasks.a]\ncron = \"* * * * * *\"\nlock_at_mots_for = \"PT1M\"\ncommand = [\"true\"]\n");
    auto r = run_cli({"daemon", "-c", misspelled, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("misspelled.toml:6") && Contains("lock_at_mots_for") && Contains("did you mean \"lock_at_most_for\""));

    const auto duration = write_config("duration.toml", "[tasks.a]\ncron = \"* * * * * *\"\nlock_at_most_for = \"60000\"\ncommand = [\"true\"]\n");
    r = run_cli({"daemon", "-c", duration, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("duration.toml:3") && Contains("\"60000\""));

    const auto bad_cron = write_config("cron.toml", "[shedlock]\n[tasks.nightly]\ncron = \"0 0 25 * * *\"\ncommand = [\"true\"]\n");
    r = run_cli({"daemon", "-c", bad_cron, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cron.toml:2") && Contains("[tasks.nightly]") && Contains("hour 25 out of range 0-23"));

    ::unsetenv("SHEDLOCK_TEST_NOT_SET");
    const auto unset = write_config("unset.toml", "[shedlock]\nprovider = \"${SHEDLOCK_TEST_NOT_SET}\"\n");
    r = run_cli({"daemon", "-c", unset, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("unset.toml:2") && Contains("SHEDLOCK_TEST_NOT_SET is not set"));
}

TEST_CASE("cli daemon --dry-run prints the next fire times and lock names", "[cli][daemon]") {
    const auto config = write_config("dry.toml", "[shedlock]\nenv = \"prod\"\n[tasks.settle]\ncron = \"0 0 2 * * ?\"\n"
                                                  "zone = \"Europe/Berlin\"\nlock_name = \"settle:{env}:{date}\"\n"
                                                  "lock_at_most_for = \"PT1H\"\ncommand = [\"true\"]\n");
    auto r = run_cli({"daemon", "-c", config, "--dry-run", "--count", "3"});
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("settle: cron(") && Contains("lock settle:prod:2"));
    std::size_t times = 0;
    for (std::size_t pos = 0; (pos = r.out.find("  lock settle:", pos)) != std::string::npos; ++pos) ++times;
    CHECK(times == 3);
    CHECK_THAT(r.out, Contains(":00:00.000Z"));  // 02:00 Berlin is 00:00 or 01:00 UTC
}

TEST_CASE("cli daemon --dry-run refuses reserved heartbeat names as the daemon does", "[cli][daemon]") {
    // The dry run previewed these (exit 0, the reserved name listed); the daemon refused them (78).
    const std::string task = "[tasks.t]\ncron = \"0 0 2 * * ?\"\nlock_at_most_for = \"PT1H\"\ncommand = [\"true\"]\n";
    const std::vector<std::pair<std::string, std::string>> reserved{
        {"[shedlock]\n" + task + "lock_name = \"shedlock-heartbeat:x\"\n", "shedlock-heartbeat:x"},
        {"[shedlock]\n" + task + "lock_name = \"SHEDLOCK-HEARTBEAT:x\"\n", "SHEDLOCK-HEARTBEAT:x"},
        {"[shedlock]\n" + task + "lock_name = \"shedlock-heartbeat:{date}\"\n", "shedlock-heartbeat:2"},
        {"[shedlock]\nenv = \"shedlock-heartbeat\"\n" + task + "lock_name = \"{env}:x\"\n", "shedlock-heartbeat:x"},
        {"[shedlock]\n[tasks.\"shedlock-heartbeat:t\"]\ncron = \"0 0 2 * * ?\"\nlock_at_most_for = \"PT1H\"\n"
         "command = [\"true\"]\n",
         "shedlock-heartbeat:t"},
    };
    int n = 0;
    for (const auto& [text, name] : reserved) {
        const auto config = write_config("reserved" + std::to_string(++n) + ".toml", text);
        INFO(text);
        const auto dry = run_cli({"daemon", "-c", config, "--dry-run"});
        INFO(dry.out << dry.err);
        CHECK(dry.status == 78);
        CHECK_THAT(dry.err, Contains("lock name \"" + name) && Contains("reserved for the heartbeat records"));
        CHECK(dry.out.empty());  // nothing previewed as if it would run
    }
}

TEST_CASE("cli run --config takes provider, policy and command from the file", "[cli][config]") {
    const std::string db = scratch_dir() + "/runcfg.db";
    REQUIRE(run_cli({"schema", "apply", "-p", "sqlite:" + db}).status == 0);
    const auto config = write_config("run.toml", "[shedlock]\nprovider = \"sqlite:" + db + "\"\n[tasks.report]\n"
                                                  "lock_name = \"report:{date}\"\nlock_at_most_for = \"PT5M\"\n"
                                                  "command = [\"sh\", \"-c\", \"echo $SHEDLOCK_LOCK_NAME; exit 4\"]\n");
    auto r = run_cli({"run", "-c", config, "-t", "report"});
    CHECK(r.status == 4);
    CHECK_THAT(r.out, Contains("report:20"));
    CHECK(run_cli({"run", "-c", config, "-t", "nope"}).status == 78);
}
