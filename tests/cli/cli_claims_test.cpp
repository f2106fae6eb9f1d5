// End-to-end: `shedlock run --once-key` and `shedlock claims` on a real SQLite file.
#include "cli_process.hpp"

#include "server_env.hpp"
#include "tcp_client_ports.hpp"
#include "test_env.hpp"

#include <shedlock/provider_uri.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string claims_db(const std::string& file) {
    const std::string uri = "sqlite:" + scratch_dir() + "/" + file;
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    return uri;
}

cli_result run_once(const std::string& uri, const std::string& key, std::vector<std::string> extra,
                    const std::string& script) {
    std::vector<std::string> args{"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key", key};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "sh", "-c", script});
    return run_cli(args);
}

/// A server backend under its own tables (or prefix), the server's port, and how to make the
/// server kill given client connections (a shell command taking the ports, run by the test).
struct killing_backend {
    std::string uri;
    int port = 0;
    std::function<std::string(const std::vector<int>& ports)> kill_command;
};

std::string unique_name(const std::string& base) { return base + std::to_string(::getpid()); }

killing_backend postgres_backend() {
    const auto base = required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    const auto u = shedlock::parse_provider_uri(base);
    const auto t = unique_name("killed_pg_");
    return {base + "?table=" + t + "&runs_table=" + t + "_runs&claims_table=" + t + "_claims", u.port.value_or(5432),
            [base](const std::vector<int>& ports) {
                return "psql '" + base + "' -Atc \"SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
                       "WHERE client_port IN (" + port_list(ports) + ") AND client_addr = inet_client_addr()\" >/dev/null";
            }};
}

killing_backend mysql_backend() {
    const auto base = required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh");
    const auto u = shedlock::parse_provider_uri(base);
    const auto t = unique_name("killed_my_");
    const std::string client = "MYSQL_PWD='" + u.password.value_or("") + "' mysql -h " + u.host + " -P " +
                               std::to_string(u.port.value_or(3306)) + " -u " + u.user + " " + u.path;
    return {base + "?table=" + t + "&runs_table=" + t + "_runs&claims_table=" + t + "_claims", u.port.value_or(3306),
            [client, host = u.host](const std::vector<int>& ports) {
                std::string hosts;
                for (int p : ports) hosts += (hosts.empty() ? "'" : ", '") + host + ":" + std::to_string(p) + "'";
                return client + " -N -e \"SELECT ID FROM information_schema.PROCESSLIST WHERE HOST IN (" + hosts +
                       ")\" | while read id; do " + client + " -e \"KILL CONNECTION $id\"; done";
            }};
}

killing_backend redis_backend() {
    const auto base = required_env("SHEDLOCK_TEST_REDIS_URI", "providers/redis/server.sh");
    const auto u = shedlock::parse_provider_uri(base);
    const std::string client = "REDISCLI_AUTH='" + u.password.value_or("") + "' redis-cli -h " + u.host + " -p " +
                               std::to_string(u.port.value_or(6379));
    return {base + "?prefix=" + unique_name("killed-"), u.port.value_or(6379),
            [client, host = u.host](const std::vector<int>& ports) {
                std::string command = "true";
                for (int p : ports) command += " && " + client + " CLIENT KILL ADDR " + host + ":" + std::to_string(p) + " >/dev/null";
                return command;
            }};
}

/// `shedlock run --once-key KEY` on `b` whose command waits while the server kills every
/// connection the shedlock process has open to it (as pg_terminate_backend, KILL, CLIENT KILL or
/// a restart would), then exits 0.
cli_result run_with_connections_killed(const killing_backend& b, const std::string& key) {
    const std::string dir = scratch_dir() + "/" + key;
    std::filesystem::create_directories(dir);
    const std::string started = dir + "/started", go = dir + "/go";
    // The command tells its parent's pid (the shedlock process) and waits for the kill to be done.
    const std::string script = "echo $PPID > " + started + "; while [ ! -e " + go + " ]; do sleep 0.02; done";
    auto run = std::async(std::launch::async, [&] {
        return run_cli({"--log-level", "debug", "run", "-p", b.uri, "-n", key, "--at-most", "PT1M", "--once-key", key,
                        "--", "sh", "-c", script});
    });
    const bool command_started = wait_for_file(started, 60);
    if (command_started) {
        const pid_t shedlock = std::stoi(read_file(started));
        const auto ports = tcp_client_ports(shedlock, b.port);
        CHECK_FALSE(ports.empty());
        const auto command = b.kill_command(ports);
        CHECK(std::system(command.c_str()) == 0);
        CHECK(wait_until_closed(shedlock, b.port, ports));
    }
    std::ofstream(go) << "go";
    auto result = run.get();
    INFO(result.err);
    REQUIRE(command_started);
    return result;
}

/// The completion survives the kill: the run succeeds quietly, the key is done, a second run
/// does not run the command.
void check_completion_survives_killed_connections(const killing_backend& b) {
    REQUIRE(run_cli({"schema", "apply", "-p", b.uri}).status == 0);
    const std::string key = unique_name("killed-" + b.uri.substr(0, b.uri.find(':')) + "-");
    const auto first = run_with_connections_killed(b, key);
    INFO(first.err);
    CHECK(first.status == 0);
    CHECK_THAT(first.err, !Contains("not marked done"));
    const auto listed = run_cli({"claims", "-p", b.uri, "--json"});
    CHECK_THAT(listed.out, Contains("\"key\": \"" + key + "\"") && Contains("\"state\": \"done\""));
    const std::string marker = scratch_dir() + "/" + key + "-ran-again";
    const auto again = run_cli({"run", "-p", b.uri, "-n", key, "--at-most", "PT1M", "--once-key", key, "--", "touch", marker});
    CHECK(again.status == 79);
    CHECK_FALSE(std::filesystem::exists(marker));
    (void)run_cli({"claims", "reset", key, "--force", "-p", b.uri});
}

}  // namespace

TEST_CASE("cli run --once-key: a failed command retries, a done key exits 79", "[cli][idempotency]") {
    const auto uri = claims_db("once.db");
    auto failed = run_once(uri, "settle:20240601", {}, "echo key=$SHEDLOCK_IDEMPOTENCY_KEY attempt=$SHEDLOCK_CLAIM_ATTEMPT; exit 3");
    CHECK(failed.status == 3);
    CHECK_THAT(failed.out, Contains("key=settle:20240601 attempt=1"));
    auto retried = run_once(uri, "settle:20240601", {}, "echo attempt=$SHEDLOCK_CLAIM_ATTEMPT");
    CHECK(retried.status == 0);
    CHECK_THAT(retried.out, Contains("attempt=2"));
    const std::string marker = scratch_dir() + "/ran-again";
    auto again = run_once(uri, "settle:20240601", {}, "touch " + marker);
    CHECK(again.status == 79);
    CHECK_THAT(again.err, Contains("already done"));
    CHECK_FALSE(std::filesystem::exists(marker));
    CHECK(run_once(uri, "settle:20240601", {"--done-exit", "0"}, "touch " + marker).status == 0);
    CHECK_FALSE(std::filesystem::exists(marker));
    CHECK(run_once(uri, "settle:20240602", {}, "true").status == 0);  // another day runs
    CHECK(run_once(uri, std::string(300, 'k'), {}, "true").status == 78);
    CHECK(run_once(uri, "k", {"--claim-for", "-5s"}, "true").status == 78);
}

TEST_CASE("cli claims: list, JSON, reset only with --force", "[cli][idempotency]") {
    const auto uri = claims_db("claims.db");
    REQUIRE(run_once(uri, "settle:20240601", {}, "true").status == 0);
    auto table = run_cli({"claims", "-p", uri});
    CHECK(table.status == 0);
    CHECK_THAT(table.out, Contains("KEY") && Contains("settle:20240601") && Contains("done") && Contains("exit status 0"));
    auto json = run_cli({"claims", "-p", uri, "--json"});
    CHECK_THAT(json.out, Contains("\"key\": \"settle:20240601\"") && Contains("\"state\": \"done\"") &&
                             Contains("\"attempt\": 1"));
    auto refused = run_cli({"claims", "reset", "settle:20240601", "-p", uri});
    CHECK(refused.status == 64);
    CHECK_THAT(refused.err, Contains("--force"));
    CHECK(run_once(uri, "settle:20240601", {}, "true").status == 79);  // still done
    CHECK(run_cli({"claims", "reset", "settle:20240601", "--force", "-p", uri}).status == 0);
    CHECK(run_cli({"claims", "reset", "settle:20240601", "--force", "-p", uri}).status == 1);
    CHECK(run_once(uri, "settle:20240601", {}, "true").status == 0);  // runs again after the reset
}

TEST_CASE("cli claims reset: a key with terminal escapes is shown escaped", "[cli][idempotency]") {
    const auto uri = claims_db("escaped.db");
    const std::string key = "settle\x1b]0;pwned\x07:1";  // an OSC sequence that retitles the terminal
    const auto refused = run_cli({"claims", "reset", key, "-p", uri});
    CHECK(refused.status == 64);
    CHECK_THAT(refused.err, Contains("settle\\x1b]0;pwned\\x07:1") && !Contains("\x1b") && !Contains("\x07"));
    const auto missing = run_cli({"claims", "reset", key, "--force", "-p", uri});
    CHECK(missing.status != 0);
    CHECK_THAT(missing.err, Contains("\\x1b") && !Contains("\x1b") && !Contains("\x07"));
}

TEST_CASE("cli run --once-key: PostgreSQL connections terminated while the command runs lose nothing",
          "[cli][idempotency][postgres]") {
    check_completion_survives_killed_connections(postgres_backend());
}

TEST_CASE("cli run --once-key: MariaDB connections killed while the command runs lose nothing", "[cli][idempotency][mysql]") {
    check_completion_survives_killed_connections(mysql_backend());
}

TEST_CASE("cli run --once-key: Redis clients killed while the command runs lose nothing", "[cli][idempotency][redis]") {
    check_completion_survives_killed_connections(redis_backend());
}

TEST_CASE("cli run --once-key: a completion that cannot be written warns and exits 80", "[cli][idempotency]") {
    const auto uri = claims_db("unrecorded.db");
    const std::string file = uri.substr(std::string("sqlite:").size());
    // The command succeeds, and drops the claims table under shedlock (as an operator's mistake or
    // a restored backup would): marking the key done fails however often it is retried.
    const auto r = run_once(uri, "settle:20240601", {}, "sqlite3 '" + file + "' 'DROP TABLE shedlock_claims'");
    CHECK(r.status == 80);
    CHECK_THAT(r.err, Contains("settle:20240601") && Contains("not marked done") && Contains("shedlock_claims") &&
                          Contains("may run again"));
    // A failed command whose failure cannot be written keeps its own exit status, and warns.
    const auto again = run_cli({"schema", "apply", "-p", uri});
    REQUIRE(again.status == 0);
    const auto failed = run_once(uri, "settle:20240602", {}, "sqlite3 '" + file + "' 'DROP TABLE shedlock_claims'; exit 3");
    CHECK(failed.status == 3);
    CHECK_THAT(failed.err, Contains("settle:20240602") && Contains("not marked failed"));
}

TEST_CASE("cli run: an empty --once-key is a configuration error, --claim-for needs a key", "[cli][idempotency]") {
    const auto uri = claims_db("empty-key.db");
    const std::string marker = scratch_dir() + "/ran-without-key";
    const std::vector<std::string> head{"run", "-p", uri, "-n", "settle", "--at-most", "PT1M"};
    const std::vector<std::string> tail{"--", "touch", marker};
    auto with = [&](std::vector<std::string> middle) {
        auto args = head;
        args.insert(args.end(), middle.begin(), middle.end());
        args.insert(args.end(), tail.begin(), tail.end());
        return run_cli(args);
    };
    for (const auto& form : std::vector<std::vector<std::string>>{{"--once-key", ""}, {"--once-key="}}) {
        const auto r = with(form);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("--once-key") && Contains("empty"));
    }
    const auto claim_for = with({"--claim-for", "5m"});
    CHECK(claim_for.status == 64);
    CHECK_THAT(claim_for.err, Contains("--claim-for") && Contains("--once-key"));
    CHECK_FALSE(std::filesystem::exists(marker));

    // The config file: a key that expands to nothing, and claim_for without a key.
    const std::string empty_key = scratch_dir() + "/empty-key.toml", lonely = scratch_dir() + "/lonely.toml";
    const std::string task = "[shedlock]\nprovider = \"" + uri + "\"\n[tasks.settle]\ncron = \"0 0 2 * * ?\"\n" +
                             "lock_at_most_for = \"PT1M\"\ncommand = [\"touch\", \"" + marker + "\"]\n";
    std::ofstream(empty_key) << task << "idempotency_key = \"${SHEDLOCK_TEST_UNSET_KEY:}\"\n";
    std::ofstream(lonely) << task << "claim_for = \"PT5M\"\n";
    const auto rendered_empty = run_cli({"run", "--config", empty_key, "--task", "settle"});
    CHECK(rendered_empty.status == 78);
    CHECK_THAT(rendered_empty.err, Contains("idempotency_key") && Contains("empty"));
    const auto without_key = run_cli({"run", "--config", lonely, "--task", "settle"});
    CHECK(without_key.status == 78);
    CHECK_THAT(without_key.err, Contains("claim_for") && Contains("idempotency_key"));
    CHECK_FALSE(std::filesystem::exists(marker));
}
