// End-to-end: locks, schema, doctor and bench as an operator drives them.
#include "cli_process.hpp"

#include "../providers/test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <cstdlib>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

/// Every backend of the test environment: SQLite always, servers when their URI is exported.
/// Each gets its own lock table (tests run in parallel) through `shedlock schema apply`, as an
/// operator would do.
std::vector<std::string> backend_uris(const std::string& table) {
    std::vector<std::string> uris{"sqlite:" + scratch_dir() + "/inspect.db?table=" + table};
    for (const char* var : {"SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_MYSQL_URI"})
        if (const char* uri = std::getenv(var))  // own run table too: schema apply creates both
            uris.emplace_back(std::string(uri) + "?table=" + table + "&runs_table=" + table + "_runs");
    if (const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI")) uris.emplace_back(uri);
    for (const auto& uri : uris) {
        const auto applied = run_cli({"schema", "apply", "-p", uri});
        INFO(applied.err);
        REQUIRE(applied.status == 0);
    }
    return uris;
}

}  // namespace

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
    CHECK_THAT(sqlite.out, Contains("CREATE TABLE IF NOT EXISTS ops_locks") && Contains("fencing_token"));
    CHECK(run_cli({"schema", "print", "-p", "sqlite:x.db?table=bad;name"}).status == 78);
}

TEST_CASE("cli doctor: every backend passes, the report names each check", "[cli]") {
    for (const auto& uri : backend_uris("cli_doctor")) {
        auto r = run_cli({"doctor", "-p", uri});
        INFO(uri << "\n" << r.out << r.err);
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Contains("ok    connect") && Contains("permissions") && Contains("clock"));
        CHECK_THAT(r.out + r.err, !Contains("hunter2"));
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
    CHECK_THAT(table.out, Contains("PROVIDER") && Contains("CYCLES/S") && Contains("FAIRNESS") && !Contains("hunter2"));
    CHECK(std::count(table.out.begin(), table.out.end(), '\n') == static_cast<long>(uris.size()) + 1);  // header + a row each
    for (const auto& uri : uris) CHECK_THAT(table.out, Contains(uri.substr(0, uri.find(':') + 1)));  // a row per backend
    CHECK(bench_records() == before);
}
