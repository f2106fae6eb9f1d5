// End-to-end: locks, schema, doctor and bench as an operator drives them.
#include "cli_backends.hpp"
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

using namespace shedlock::test;
using Catch::Matchers::Contains;


TEST_CASE("cli locks: lists holder and token, JSON for scripts, release needs --force", "[cli]") {
    const std::string uri = "sqlite:" + scratch_dir() + "/locks.db";
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    const pid_t holder = start_cli({"run", "-p", uri, "-n", "held-job", "--at-most", "PT1M", "--", "sleep", "30"});
    auto json = run_cli({"locks", "-p", uri, "--json"});
    for (int i = 0; i < 100 && json.out.find("\"held\": true") == std::string::npos; ++i)
        json = run_cli({"locks", "-p", uri, "--json"});
    CHECK(json.status == 0);
    CHECK_THAT(json.out, Contains("\"name\": \"held-job\"") && Contains("\"held\": true") && Contains("\"fencing_token\": 1"));
    auto table = run_cli({"locks", "-p", uri, "--stuck-after", "10s"});
    CHECK_THAT(table.out, Contains("NAME") && Contains("held-job") && Contains("stuck?"));
    CHECK(run_cli({"locks", "release", "held-job", "-p", uri}).status == 64);  // no --force
    auto released = run_cli({"locks", "release", "held-job", "-p", uri, "--force", "--yes"});
    CHECK(released.status == 0);
    CHECK_THAT(released.out, Contains("released"));
    CHECK(run_cli({"run", "-p", uri, "-n", "held-job", "--at-most", "PT1M", "--", "true"}).status == 0);
    ::kill(holder, SIGTERM);
    wait_cli(holder);
}

TEST_CASE("cli schema print: DDL per dialect without connecting", "[cli]") {
    auto sqlite = run_cli({"schema", "print", "-p", "sqlite:x.db?table=ops_locks"});
    CHECK(sqlite.status == 0);
    CHECK_THAT(sqlite.out, Contains("CREATE TABLE IF NOT EXISTS \"ops_locks\"") && Contains("fencing_token"));
    CHECK(run_cli({"schema", "print", "-p", "sqlite:x.db?table=bad;name"}).status == 78);
}

namespace {

/// The passwords of the server URIs in `uris`: the secrets an output must not show. Each server
/// URI must carry one, or the check would pass with nothing to find.
std::vector<std::string> passwords_of(const std::vector<std::string>& uris) {
    std::vector<std::string> secrets;
    for (const auto& uri : uris) {
        if (uri.rfind("sqlite:", 0) == 0) continue;
        INFO(uri << ": a test server URI without a password cannot show that passwords stay hidden");
        REQUIRE(uri_password(uri).size() >= 4);
        secrets.push_back(uri_password(uri));
    }
    return secrets;
}

}  // namespace

TEST_CASE("cli doctor: every backend passes, the report names each check", "[cli]") {
    CHECK(uri_password("redis://:hunter2@127.0.0.1:9/0?connect_timeout=500ms") == "hunter2");  // the reader reads
    CHECK(uri_password("postgresql://u:p%40ss@h:1/db") == "p%40ss");
    CHECK(uri_password("sqlite:/tmp/x@y:z.db").empty());
    for (const auto& uri : backend_uris("cli_doctor")) {
        auto r = run_cli({"doctor", "-p", uri});
        INFO(uri << "\n" << r.out << r.err);
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Contains("ok    connect") && Contains("permissions") && Contains("clock"));
        for (const auto& secret : passwords_of({uri})) CHECK_THAT(r.out + r.err, !Contains(secret));
    }
    auto json = run_cli({"doctor", "--json", "-p", backend_uris("cli_doctor").front()});
    CHECK(json.status == 0);
    CHECK_THAT(json.out, Contains("{\"level\": \"ok\", \"check\": \"connect: sqlite:"));
    auto down = run_cli({"doctor", "-p", "redis://:hunter2@127.0.0.1:9/0?connect_timeout=500ms"});
    CHECK(down.status == 69);
    CHECK_THAT(down.out + down.err, !Contains("hunter2"));
}

TEST_CASE("cli bench: one table row per provider, JSON and SVG, nothing left behind", "[cli]") {
    std::vector<std::string> args{"bench", "--duration", "300ms", "--contenders", "3", "--json"};
    const auto uris = backend_uris("cli_bench");
    auto bench_records = [&] {  // records an earlier, interrupted run may have left count as before
        std::size_t n = 0;
        for (const auto& uri : uris) {
            const std::string listing = run_cli({"locks", "-p", uri}).out;
            for (std::size_t pos = 0; (pos = listing.find("shedlock-bench:", pos)) != std::string::npos; ++pos) ++n;
        }
        return n;
    };
    const std::size_t before = bench_records();
    for (const auto& uri : uris) args.insert(args.end(), {"-p", uri});
    const std::string svg = scratch_dir() + "/bench.svg";
    args.insert(args.end(), {"--svg", svg});
    auto r = run_cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    std::size_t rows = 0;
    for (std::size_t pos = 0; (pos = r.out.find("\"provider\":", pos)) != std::string::npos; ++pos) ++rows;
    CHECK(rows == uris.size());
    CHECK_THAT(r.out, Contains("\"cycles_per_s\"") && Contains("\"fairness\"") && Contains("\"p99_us\""));
    CHECK_THAT(read_file(svg), Contains("<svg") && Contains("<rect"));
    std::vector<std::string> table_args{"bench", "--duration", "200ms", "--contenders", "2"};
    for (const auto& uri : uris) table_args.insert(table_args.end(), {"-p", uri});
    auto table = run_cli(table_args);
    REQUIRE(table.status == 0);
    CHECK_THAT(table.out, Contains("PROVIDER") && Contains("CYCLES/S") && Contains("FAIRNESS"));
    for (const auto& secret : passwords_of(uris)) {
        CHECK_THAT(table.out + table.err, !Contains(secret));
        CHECK_THAT(r.out + r.err + read_file(svg), !Contains(secret));
    }
    CHECK(std::count(table.out.begin(), table.out.end(), '\n') == static_cast<long>(uris.size()) + 1);  // header + a row each
    for (const auto& uri : uris) CHECK_THAT(table.out, Contains(uri.substr(0, uri.find(':') + 1)));  // a row per backend
    CHECK(bench_records() == before);
}

TEST_CASE("cli locks: a freed Redis lock is never listed as held", "[cli]") {
    // Regression: the local clock was read before the listing's server time (unspecified
    // argument order), so about 1 listing in 3 showed a free lock as "held" with no holder.
    const std::string uri = test_server_uri("SHEDLOCK_TEST_REDIS_URI") + "?prefix=cli-freed-" + std::to_string(::getpid());
    REQUIRE(run_cli({"run", "-p", uri, "-n", "freed", "--at-most", "1m", "--", "true"}).status == 0);
    for (int i = 0; i < 15; ++i) {
        auto r = run_cli({"locks", "-p", uri, "--json"});
        INFO(r.out << r.err);
        REQUIRE(r.status == 0);
        CHECK_THAT(r.out, Contains("\"name\": \"freed\"") && Contains("\"held\": false"));
    }
}

TEST_CASE("cli locks and runs: stored control characters are escaped, not sent to the terminal", "[cli]") {
    // Regression: a locked_by or message holding ESC sequences was printed raw.
    const std::string file = scratch_dir() + "/escapes.db";
    const std::string uri = "sqlite:" + file;
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    const std::string esc = "\x1b]0;pwned\x07\x1b[2J\xc2\x9b" "31m";
    const std::string insert = "INSERT INTO shedlock VALUES ('evil', '2000-01-01 00:00:00.000', '2000-01-01 00:00:00.000', '" + esc +
                               "', 1); INSERT INTO shedlock_runs (task, lock_name, instance, scheduled_at, started_at, "
                               "finished_at, outcome, fencing_token, message, counters, lock_lost) VALUES ('evil', 'evil', '" +
                               esc + "', '2000-01-01 00:00:00.000', '2000-01-01 00:00:00.000', '2000-01-01 00:00:00.000', "
                               "'failed', NULL, '" + esc + "', '', 0);";
    REQUIRE(std::system(("sqlite3 '" + file + "' \"" + insert + "\"").c_str()) == 0);
    for (const auto& args : {std::vector<std::string>{"locks", "-p", uri}, std::vector<std::string>{"runs", "-p", uri}}) {
        auto r = run_cli(args);
        INFO(args.front() << ": " << r.out << r.err);
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Contains("\\x1b]0;pwned\\x07") && Contains("\\xc2\\x9b31m"));
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK(r.out.find('\x07') == std::string::npos);
        CHECK(r.out.find("\xc2\x9b") == std::string::npos);
    }
}

TEST_CASE("cli locks: one unreadable row does not break the listing and can be released", "[cli]") {
    // Regression: a row with year 12978 (an unbounded lease from an older version) made `locks`
    // and `locks release` fail for the whole table, and the lock stayed stuck.
    const std::string file = scratch_dir() + "/unreadable.db";
    const std::string uri = "sqlite:" + file;
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    REQUIRE(run_cli({"run", "-p", uri, "-n", "fine", "--at-most", "1m", "--", "true"}).status == 0);
    const std::string insert = "INSERT INTO shedlock VALUES ('stuck', '12978-01-01 00:00:00.000', '2026-01-01 00:00:00.000', "
                               "'old-host:1:x', 7);";
    REQUIRE(std::system(("sqlite3 '" + file + "' \"" + insert + "\"").c_str()) == 0);
    auto listing = run_cli({"locks", "-p", uri});
    INFO(listing.out << listing.err);
    CHECK(listing.status == 0);
    CHECK_THAT(listing.out, Contains("fine") && Contains("stuck") && Contains("UNREADABLE") && Contains("12978"));
    auto json = run_cli({"locks", "-p", uri, "--json"});
    CHECK_THAT(json.out, Contains("\"name\": \"fine\"") && Contains("\"problem\": \"the record cannot be read"));
    auto released = run_cli({"locks", "release", "stuck", "-p", uri, "--force", "--yes"});
    CHECK(released.status == 0);
    CHECK_THAT(released.out, Contains("released \"stuck\""));
    CHECK(run_cli({"run", "-p", uri, "-n", "stuck", "--at-most", "1m", "--", "true"}).status == 0);
    CHECK_THAT(run_cli({"locks", "-p", uri}).out, !Contains("UNREADABLE"));
}

TEST_CASE("cli locks and doctor: a locked_at in the future is flagged", "[cli]") {
    // A writer whose clock runs ahead, or Java ShedLock in a non-UTC JVM without forceUtcTimeZone().
    const std::string file = scratch_dir() + "/future.db";
    const std::string uri = "sqlite:" + file;
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    const std::string insert = "INSERT INTO shedlock VALUES ('ahead', strftime('%Y-%m-%d %H:%M:%f', 'now', '+3 hours'), "
                               "strftime('%Y-%m-%d %H:%M:%f', 'now', '+2 hours'), 'java-host', 0);";
    REQUIRE(std::system(("sqlite3 '" + file + "' \"" + insert + "\"").c_str()) == 0);
    auto listing = run_cli({"locks", "-p", uri});
    INFO(listing.out);
    CHECK_THAT(listing.out, Contains("held (clock?)") && Contains("in the future") && Contains("forceUtcTimeZone()"));
    auto doctor = run_cli({"doctor", "-p", uri});
    INFO(doctor.out);
    CHECK_THAT(doctor.out, Contains("warn  lock \"ahead\": locked_at is 1h59m") && Contains("forceUtcTimeZone()"));
}

TEST_CASE("cli: reserved words work as table names on every SQL backend", "[cli]") {
    // Regression: table=select or table=order gave invalid DDL and statements (unquoted).
    for (const char* table : {"select", "order"}) {
        std::vector<std::string> uris{"sqlite:" + scratch_dir() + "/reserved.db?table=" + table};
        for (const char* var : {"SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_MYSQL_URI"})
            uris.emplace_back(test_server_uri(var) + "?table=" + table);
        for (const auto& uri : uris) {
            auto applied = run_cli({"schema", "apply", "-p", uri});
            INFO(uri << ": " << applied.err);
            REQUIRE(applied.status == 0);
            auto r = run_cli({"run", "-p", uri, "-n", "reserved", "--at-most", "1m", "--", "true"});
            INFO(r.err);
            CHECK(r.status == 0);
            CHECK_THAT(run_cli({"locks", "-p", uri}).out, Contains("reserved"));
        }
    }
}

TEST_CASE("cli --version names the release", "[cli]") {
    auto r = run_cli({"--version"});
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("shedlock 0.") || Contains("shedlock 1."));
}

TEST_CASE("cli: a missing SQL table's error names the URI option create_schema=true", "[cli]") {
    // It said "set create_schema_if_missing", which no URI accepts (the URI option is create_schema).
    const std::string table = "missing_" + std::to_string(::getpid());
    const std::vector<std::string> uris{"sqlite:" + scratch_dir() + "/missing.db",
                                        test_server_uri("SHEDLOCK_TEST_POSTGRES_URI"),
                                        test_server_uri("SHEDLOCK_TEST_MYSQL_URI")};
    for (const auto& base : uris) {
        const std::string uri = base + "?table=" + table + "&runs_table=" + table + "_runs&claims_table=" + table + "_claims";
        for (const std::string command : {"locks", "runs", "claims"}) {
            const auto r = run_cli({command, "-p", uri});
            INFO(command << " -p " << base << ": " << r.err);
            CHECK(r.status != 0);
            CHECK_THAT(r.err, Contains("does not exist") && Contains("add create_schema=true to the provider URI") &&
                                  Contains("shedlock schema apply"));
        }
    }
}

TEST_CASE("cli: others' text in a log or doctor line cannot forge a line or drive the terminal", "[cli]") {
    // Regression (adversarial pass 32): a server's error reply (or any text a message quotes) with
    // a line break printed a second, forged "shedlock warn:" line, and escape sequences reached
    // the terminal. Here the text is a URI option's value, quoted back in the error.
    const std::string hostile = "1x\x1b[31mRED\r\nshedlock warn: forged\x1b]0;TITLE\x07";
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"locks", "-p", "redis://127.0.0.1:9/0?connect_timeout=" + hostile},
             {"doctor", "-p", "redis://127.0.0.1:9/0?connect_timeout=" + hostile}}) {
        const auto r = run_cli(args);
        INFO(args.front() << "\n" << r.out << r.err);
        CHECK(r.status != 0);
        const std::string all = r.out + r.err;
        CHECK(all.find('\x1b') == std::string::npos);
        CHECK(all.find('\x07') == std::string::npos);
        CHECK(all.find('\r') == std::string::npos);
        CHECK_THAT(all, Contains("\\x1b[31mRED") && !Contains("\nshedlock warn: forged"));
    }
}

TEST_CASE("cli doctor: a server nobody answers for fails the connect check, not later ones", "[cli]") {
    // Regression: the Redis providers open without a connection, so doctor printed "ok connect"
    // for a server that was not there and failed only in the checks after it.
    for (const std::string uri : {"redis://:hunter2@127.0.0.1:9/0?connect_timeout=500ms",
                                  "redis-sentinel://:hunter2@127.0.0.1:9/mymaster?connect_timeout=500ms",
                                  "redis-cluster://:hunter2@127.0.0.1:9?connect_timeout=500ms",
                                  "postgresql://u:hunter2@127.0.0.1:9/db?connect_timeout=1s"}) {
        const auto r = run_cli({"doctor", "-p", uri});
        INFO(uri << "\n" << r.out << r.err);
        CHECK(r.status == 69);
        CHECK_THAT(r.out + r.err, Contains("FAIL  connect") && !Contains("ok    connect") && !Contains("lock cycle"));
        CHECK_THAT(r.out + r.err, !Contains("hunter2"));
    }
}

TEST_CASE("cli: a connection the backend refuses for good exits 78 in every subcommand, not 69", "[cli]") {
    // Regression: locks, doctor, schema apply (main.cpp and doctor's own mapping) said 69
    // "unavailable" for what run already called a configuration problem: here PgBouncer's
    // refusal of libpq's options under pooler=none, which no retry mends.
    const std::string uri = required_env("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI", "providers/postgres/server.sh") +
                            "?table=cli_refused&pooler=none";
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"locks", "-p", uri}, {"doctor", "-p", uri}, {"schema", "apply", "-p", uri},
             {"run", "-p", uri, "-n", "refused", "--at-most", "PT1M", "--", "true"}}) {
        INFO(args.front());
        const auto r = run_cli(args);
        CHECK(r.status == 78);
        CHECK_THAT(r.out + r.err, Contains("unsupported startup parameter") && Contains("pooler=auto"));
    }
}

TEST_CASE("cli doctor: a primary whose role is read-only exits 78 like run, not 69", "[cli]") {
    // Regression: doctor's lock cycle failed with `misconfigured` (25006 on a server not in
    // recovery: ALTER ROLE ... default_transaction_read_only = off) and doctor exited 69, the
    // code for "retry later", while run exits 78 for the same URI.
    const std::string uri = required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    const std::string role = "DO \\$\\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'shedlock_ro') THEN "
                             "CREATE ROLE shedlock_ro LOGIN PASSWORD 'shedlock-test-pw'; END IF; END \\$\\$; "
                             "ALTER ROLE shedlock_ro SET default_transaction_read_only = on";
    REQUIRE(std::system(("psql -qX '" + uri + "' -c \"" + role + "\" >/dev/null").c_str()) == 0);
    REQUIRE(run_cli({"schema", "apply", "-p", uri + "?table=cli_read_only"}).status == 0);
    std::string read_only = uri;
    read_only.replace(read_only.find("://") + 3, read_only.find(':', read_only.find("://") + 3) - read_only.find("://") - 3,
                      "shedlock_ro");
    read_only += "?table=cli_read_only";
    const auto doctor = run_cli({"doctor", "-p", read_only});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.status == 78);
    CHECK_THAT(doctor.out, Contains("default_transaction_read_only = off"));
    CHECK(run_cli({"run", "-p", read_only, "-n", "read_only", "--at-most", "PT1M", "--", "true"}).status == 78);
}
