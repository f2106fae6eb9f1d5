// End-to-end: how `shedlock run --once-key` ends when the completion path goes wrong (issue 21):
// keys that vanished from the command line or are blank, a claim reset during the run, a stop
// signal while the completion waits, a claim whose answer was lost. Real servers and processes.
#include "cli_process.hpp"

#include "reply_dropping_proxy.hpp"
#include "server_env.hpp"
#include "test_env.hpp"

#include <shedlock/provider_uri.hpp>

#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string completion_scratch(const std::string& name) {
    const std::string dir = scratch_dir() + "/completion-" + name + "-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    return dir;
}

std::string completion_sqlite(const std::string& dir) {
    const std::string uri = "sqlite:" + dir + "/claims.db";
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    return uri;
}

/// The test PostgreSQL under tables of this test run: the base URI and the table options.
struct pg_tables {
    std::string base;
    std::string claims_table;
    std::string options;  ///< "table=...&runs_table=...&claims_table=..."
    std::string uri() const { return base + "?" + options; }
};

pg_tables completion_postgres(const std::string& what) {
    const auto base = required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    const std::string t = "completion_" + what + "_" + std::to_string(::getpid());
    pg_tables pg{base, t + "_claims", "table=" + t + "&runs_table=" + t + "_runs&claims_table=" + t + "_claims"};
    REQUIRE(run_cli({"schema", "apply", "-p", pg.uri()}).status == 0);
    return pg;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
    return n;
}

/// psql's one-line answer to `sql` on `uri`.
std::string psql_answer(const std::string& uri, const std::string& sql) {
    const std::string out = scratch_dir() + "/psql-answer-" + std::to_string(::getpid());
    const std::string command = "psql '" + uri + "' -Atc \"" + sql + "\" > '" + out + "' 2>&1";
    if (std::system(command.c_str()) != 0) return "psql failed: " + read_file(out);
    std::string text = read_file(out);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

}  // namespace

TEST_CASE("cli run --once-key followed by -- or another option is a usage error naming it", "[cli][idempotency]") {
    const auto dir = completion_scratch("dashes");
    const auto uri = completion_sqlite(dir);
    const std::string marker = dir + "/ran";
    const std::vector<std::string> head{"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key"};
    // What `--once-key $KEY ...` becomes with KEY unset and unquoted, and a key that looks like a flag.
    const std::vector<std::vector<std::string>> tails{
        {"--", "touch", marker},
        {"--", "sh", "-c", "touch " + marker},
        {"--claim-for", "5m", "--", "touch", marker},
        {"-n", "--", "touch", marker},
        {"-x", "--", "touch", marker},
    };
    for (const auto& tail : tails) {
        auto args = head;
        args.insert(args.end(), tail.begin(), tail.end());
        const auto r = run_cli(args);
        INFO(tail.front() << ": " << r.err);
        CHECK(r.status == 64);
        CHECK_THAT(r.err, Contains("--once-key") && Contains("\"" + tail.front() + "\"") && Contains("\"$KEY\""));
    }
    CHECK_FALSE(std::filesystem::exists(marker));
    CHECK_THAT(run_cli({"claims", "-p", uri}).out, !Contains("running") && !Contains("done"));
    // Negative control: the value given with '=' is the escape for a key that starts with '-'.
    CHECK(run_cli({"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key=-x", "--", "touch", marker}).status == 0);
    CHECK(std::filesystem::exists(marker));
}

TEST_CASE("cli run: a blank --once-key or idempotency_key is a configuration error naming it", "[cli][idempotency]") {
    const auto dir = completion_scratch("blank");
    const auto uri = completion_sqlite(dir);
    const std::string marker = dir + "/ran";
    // Spaces, a no-break space, a zero-width space, a right-to-left override, and a mix of them.
    for (const std::string key : {"   ", "\u00a0", "\u200b", "\u202e", " \u2003\ufeff "}) {
        const auto r = run_cli({"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key", key, "--", "touch", marker});
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("--once-key") && Contains("blank") && Contains("U+"));
    }
    const std::string config = dir + "/blank.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << uri << "\"\n[tasks.settle]\ncron = \"0 0 2 * * ?\"\n"
                          << "lock_at_most_for = \"PT1M\"\ncommand = [\"touch\", \"" << marker << "\"]\n"
                          << "idempotency_key = \"   \"\n";
    const auto from_config = run_cli({"run", "--config", config, "--task", "settle"});
    CHECK(from_config.status == 78);
    CHECK_THAT(from_config.err, Contains("idempotency_key") && Contains("blank") && Contains("U+0020"));
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("cli run --once-key: a claim reset during the run exits 80 and names no guessed cause", "[cli][idempotency]") {
    const auto dir = completion_scratch("reset");
    const auto uri = completion_sqlite(dir);
    // The command succeeds after an operator reset its key (the record is gone, nothing expired).
    const std::string reset = std::string("'") + SHEDLOCK_CLI_PATH + "' claims reset settle:1 --force -p '" + uri + "'";
    const auto r = run_cli({"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key", "settle:1", "--", "sh", "-c", reset});
    INFO(r.err);
    CHECK(r.status == 80);
    CHECK_THAT(r.err, Contains("settle:1") && Contains("not marked done") && Contains("no longer this run's") &&
                          Contains("reset, deleted") && Contains("may run again") && !Contains("expired after"));
    // A failed command whose claim was lost keeps its own status (the failure is not recorded either).
    const std::string failing = reset.substr(0, reset.find("settle:1")) + "settle:2" + reset.substr(reset.find("settle:1") + 8);
    const auto f = run_cli({"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key", "settle:2", "--", "sh", "-c",
                            failing + "; exit 3"});
    CHECK(f.status == 3);
    CHECK_THAT(f.err, Contains("settle:2") && Contains("not marked failed"));
}

TEST_CASE("cli run --once-key: one warning per failure and times in UTC with their zone", "[cli][idempotency]") {
    const auto dir = completion_scratch("twice");
    const auto uri = completion_sqlite(dir);
    const std::string file = uri.substr(std::string("sqlite:").size());
    // Both the completion and the release fail: the tables are gone under shedlock.
    const auto r = run_cli({"run", "-p", uri, "-n", "settle", "--at-most", "PT1M", "--once-key", "settle:1", "--", "sh", "-c",
                            "sqlite3 '" + file + "' 'DROP TABLE shedlock_claims; DROP TABLE shedlock'"});
    INFO(r.err);
    CHECK(r.status == 80);
    CHECK(occurrences(r.err, "not marked done") == 1);
    CHECK(occurrences(r.err, "releasing lock") == 1);
    CHECK(occurrences(r.err, "no such table: shedlock_claims") == 1);
    CHECK_THAT(r.err, Contains("Z, then the work may run again"));
}

TEST_CASE("cli run --once-key: SIGTERM while the completion waits on PostgreSQL is held until it is written",
          "[cli][idempotency][postgres]") {
    const auto pg = completion_postgres("sigterm");
    const auto dir = completion_scratch("sigterm");
    const std::string key = "sigterm-" + std::to_string(::getpid());
    const std::string started = dir + "/started", go = dir + "/go", locked = dir + "/locked", release = dir + "/release";
    auto run = std::async(std::launch::async, [&] {
        return run_cli({"run", "-p", pg.uri(), "-n", key, "--at-most", "PT1M", "--once-key", key, "--", "sh", "-c",
                        "echo $PPID > " + started + "; while [ ! -e " + go + " ]; do sleep 0.02; done"});
    });
    REQUIRE(wait_for_file(started, 60));
    const pid_t shedlock = std::stoi(read_file(started));
    // A second session holds the claim's row, so marking it done waits for that session.
    const std::string holder = dir + "/holder.sql";
    std::ofstream(holder) << "BEGIN;\nSELECT name FROM " << pg.claims_table << " WHERE kind = 'c' AND name = '" << key
                          << "' FOR UPDATE;\n\\! echo locked > " << locked << "\n\\! while [ ! -e " << release
                          << " ]; do sleep 0.02; done\nCOMMIT;\n";
    const std::string start_holder = "psql '" + pg.base + "' -v ON_ERROR_STOP=1 -f '" + holder + "' > '" + dir + "/holder.log' 2>&1 &";
    REQUIRE(std::system(start_holder.c_str()) == 0);
    const bool holding = wait_for_file(locked, 60);
    std::ofstream(go) << "go";  // the command exits 0: shedlock now marks the key done, and waits
    bool waiting = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a loaded machine
    while (holding && !waiting && std::chrono::steady_clock::now() < deadline) {
        waiting = psql_answer(pg.base, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%" +
                                           pg.claims_table + "%'") == "1";
        if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // poll interval, not a wait for an event
    }
    if (waiting) ::kill(shedlock, SIGTERM);
    std::ofstream(release) << "go";
    const auto r = run.get();
    INFO(r.err << read_file(dir + "/holder.log"));
    REQUIRE(holding);
    REQUIRE(waiting);
    CHECK(r.status == 0);
    CHECK_THAT(r.err, Contains("SIGTERM") && Contains("completion was recorded") && Contains("lock released"));
    CHECK_THAT(run_cli({"claims", "-p", pg.uri(), "--json"}).out, Contains("\"key\": \"" + key + "\"") &&
                                                                      Contains("\"state\": \"done\""));
    // The lock was released too: the next run of the same lock name runs at once.
    CHECK(run_cli({"run", "-p", pg.uri(), "-n", key, "--at-most", "PT1M", "--", "true"}).status == 0);
}

namespace {

/// `base` with its port replaced by `port` (the URI must name its port).
std::string through_port(const std::string& base, int server_port, std::uint16_t port) {
    std::string uri = base;
    const std::string from = ":" + std::to_string(server_port) + "/";
    const auto at = uri.find(from);
    REQUIRE(at != std::string::npos);
    return uri.replace(at, from.size(), ":" + std::to_string(port) + "/");
}

/// `direct` and `proxied` reach the same server and tables; the proxy drops the answer to the
/// first request that carries the key (the claim: written, its answer never arrives). The run
/// exits 69 saying the claim was released, and the next run claims the key and does the work
/// instead of finding it blocked for claim_for (an hour here).
void check_lost_claim_answer_released(reply_dropping_proxy& proxy, const std::string& direct, const std::string& proxied,
                                      const std::string& name) {
    const auto dir = completion_scratch(name);
    const std::string key = name + "-key-" + std::to_string(::getpid()), marker = dir + "/ran";
    const std::string lock = name + "-lock-" + std::to_string(::getpid());
    proxy.arm(key);
    const auto first = run_cli({"run", "-p", proxied, "-n", lock, "--at-most", "PT1H", "--once-key", key, "--", "touch", marker});
    INFO(first.err);
    CHECK(proxy.fired());
    CHECK(first.status == 69);
    // Behind a pooler the claim's first message may bind a statement the server connection lacks
    // (26000: nothing ran, then the answer was lost): no claim was stored, which the run says.
    const bool pooled = shedlock::test::is_test_pooler(direct);
    const bool stored_none = pooled && first.err.find("no claim of this run was stored") != std::string::npos;
    CHECK_THAT(first.err, Contains(key) && Contains("could not be claimed"));
    CHECK_THAT(first.err, Contains(stored_none ? "not blocked" : "released"));
    CHECK_FALSE(std::filesystem::exists(marker));
    const auto second = run_cli({"run", "-p", direct, "-n", lock, "--at-most", "PT1H", "--once-key", key, "--", "touch", marker});
    INFO(second.err);
    CHECK(second.status == 0);
    CHECK_THAT(second.err, !Contains("is running under"));
    CHECK(std::filesystem::exists(marker));
    // The released claim counted as an attempt that failed: the record says so.
    const auto listed = run_cli({"claims", "-p", direct, "--json"}).out;
    CHECK_THAT(listed, Contains("\"key\": \"" + key + "\"") && Contains(stored_none ? "\"attempt\": 1" : "\"attempt\": 2") &&
                           Contains("\"state\": \"done\""));
}

}  // namespace

TEST_CASE("cli run --once-key: a PostgreSQL claim whose answer was lost is released and does not block the key",
          "[cli][idempotency][postgres]") {
    const auto pg = completion_postgres("dropped");
    const int server_port = shedlock::parse_provider_uri(pg.base).port.value_or(5432);
    reply_dropping_proxy proxy(static_cast<std::uint16_t>(server_port));
    // sslmode=disable: the proxy must see the statement (the key travels in the upsert's Bind).
    const auto proxied = through_port(pg.base, server_port, proxy.port()) + "?sslmode=disable&" + pg.options;
    check_lost_claim_answer_released(proxy, pg.uri(), proxied, "dropped-pg");
}

TEST_CASE("cli run --once-key: a Redis claim whose answer was lost is released and does not block the key",
          "[cli][idempotency][redis]") {
    const auto base = required_env("SHEDLOCK_TEST_REDIS_URI", "providers/redis/server.sh");
    const int server_port = shedlock::parse_provider_uri(base).port.value_or(6379);
    reply_dropping_proxy proxy(static_cast<std::uint16_t>(server_port));
    const std::string prefix = "?prefix=completion-dropped-" + std::to_string(::getpid());
    check_lost_claim_answer_released(proxy, base + prefix, through_port(base, server_port, proxy.port()) + prefix,
                                     "dropped-rd");
}
