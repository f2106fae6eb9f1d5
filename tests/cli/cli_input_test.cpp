// End-to-end: bad input to `shedlock` is refused with a clear error before anything is written,
// and errors never show a password, in whole or in part.
#include "cli_backends.hpp"
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string sqlite_uri(const std::string& file) { return "sqlite:" + scratch_dir() + "/" + file + "?create_schema=true"; }

std::vector<std::string> run_with(const std::string& uri, std::vector<std::string> options) {
    std::vector<std::string> args{"run", "-p", uri, "-n", "input"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", "true"});
    return args;
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("cli run: durations past the maximum are refused, not wrapped", "[cli][input]") {
    // Regressions: --at-most 26687997792d ran as PT4H11M46S; P4000000D wrote year 12978.
    const auto uri = sqlite_uri("durations.db");
    for (const char* at_most : {"26687997792d", "PT3221222222H"}) {
        auto r = run_cli(run_with(uri, {"--at-most", at_most}));
        INFO(at_most << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains(at_most) && Contains("longer than the longest duration"));
    }
    auto lease = run_cli(run_with(uri, {"--at-most", "P4000000D"}));
    CHECK(lease.status == 78);
    CHECK_THAT(lease.err, Contains("P4000000D") && Contains("is longer than"));
    lease = run_cli(run_with(uri, {"--at-most", "P3651D"}));
    CHECK(lease.status == 78);
    CHECK_THAT(lease.err, Contains("longer than the maximum PT87600H (3650 days)"));
    auto option = run_cli(run_with("sqlite:x.db?connect_timeout=pt000003709551615H", {"--at-most", "1m"}));
    CHECK(option.status == 78);
    CHECK(run_cli({"locks", "-p", uri}).out.find("input") == std::string::npos);  // nothing was written
}

TEST_CASE("cli run: --timeout must be a positive duration", "[cli][input]") {
    // Regressions: P200000D killed at once with 124, 0s gave 124, -5s was accepted.
    const auto uri = sqlite_uri("timeout.db");
    for (const char* timeout : {"P200000D", "0s", "-5s"}) {
        auto r = run_cli(run_with(uri, {"--at-most", "1m", "--timeout", timeout}));
        INFO(timeout << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("--timeout") && Contains(timeout));
    }
    CHECK(run_cli(run_with(uri, {"--at-most", "1m", "--timeout", "P3650D"})).status == 0);
}

TEST_CASE("cli: an option given an empty value is a configuration error and not its default", "[cli][input]") {
    // Regression: `--timeout "$T"` with T unset meant "no timeout"; --at-most "" and --at-least ""
    // fell back to their defaults without a word (the command ran).
    const auto uri = sqlite_uri("empty-values.db");
    const std::string ran = scratch_dir() + "/empty-value-ran";
    for (const char* option : {"--timeout", "--at-least", "--at-most", "--skipped-exit"}) {
        std::vector<std::string> args{"run", "-p", uri, "-n", "empty", option, "", "--", "sh", "-c", "echo x > " + ran};
        auto r = run_cli(args);
        INFO(option << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains(std::string(option) + " is empty") && Contains("leave " + std::string(option) + " out"));
        CHECK_FALSE(std::filesystem::exists(ran));
    }
    auto with_equals = run_cli({"run", "-p", uri, "-n", "empty", "--timeout=", "--", "true"});
    CHECK(with_equals.status == 78);
    CHECK_THAT(with_equals.err, Contains("--timeout is empty"));
    auto locks = run_cli({"locks", "-p", uri, "--stuck-after", ""});
    CHECK(locks.status == 78);
    CHECK_THAT(locks.err, Contains("--stuck-after is empty"));
}

TEST_CASE("cli run: exit statuses outside 0-255 are refused", "[cli][input]") {
    // Regression: --skipped-exit 256 exited 0 while the command was skipped (-1 gave 255).
    const auto uri = sqlite_uri("exits.db");
    for (const char* option : {"--skipped-exit", "--unavailable-exit"})
        for (const char* value : {"256", "-1", "1000"}) {
            auto r = run_cli(run_with(uri, {"--at-most", "1m", option, value}));
            INFO(option << " " << value << ": " << r.err);
            CHECK(r.status == 64);
            CHECK_THAT(r.err, Contains(option) && Contains(value));
        }
}

TEST_CASE("cli run: --unavailable-exit applies when an SQL server cannot be reached", "[cli][input]") {
    // Regression: a failed connection escaped as exit 69 whatever --unavailable-exit said.
    for (const char* uri : {"postgresql://app:pw@127.0.0.1:9/ops?connect_timeout=1s",
                            "mysql://app:pw@127.0.0.1:9/ops?connect_timeout=1s"}) {
        auto r = run_cli(run_with(uri, {"--at-most", "1m", "--unavailable-exit", "0"}));
        INFO(uri << ": " << r.err);
        CHECK(r.status == 0);
        CHECK_THAT(r.err, Contains("unavailable"));
        CHECK(run_cli(run_with(uri, {"--at-most", "1m", "--unavailable-exit", "42"})).status == 42);
    }
}

TEST_CASE("cli run: a missing lock table is a configuration error with the DDL", "[cli][input]") {
    // Regression: it exited 69 ("unreachable"), so --unavailable-exit 0 hid the mistake.
    const std::string uri = "sqlite:" + scratch_dir() + "/no-table.db";
    auto r = run_cli(run_with(uri, {"--at-most", "1m", "--unavailable-exit", "0"}));
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("does not exist") && Contains("CREATE TABLE IF NOT EXISTS") && Contains("schema apply"));
    CHECK(run_cli({"locks", "-p", uri}).status == 78);
}

TEST_CASE("cli: a malformed URI never shows its password, even a part of it", "[cli][input]") {
    // Regression: with '/', '@' or '?' in the password the text masking failed and the error
    // printed the password (or a piece of it as a "port").
    for (const std::string password : {"s3/cr3tXYZ", "s3@cr3tXYZ", "s3?cr3tXYZ", "s3:cr3t/XYZ"}) {
        const std::string uri = "postgresql://app:" + password + "@db.internal:5432/ops";
        auto r = run_cli(run_with(uri, {"--at-most", "1m"}));
        INFO(uri << ": " << r.err);
        CHECK(r.status != 0);
        CHECK_THAT(r.err, !Contains("XYZ") && !Contains("cr3t"));
    }
    auto bad_port = run_cli(run_with("redis://:hunter2/XYZ@127.0.0.1:6379/0", {"--at-most", "1m"}));
    CHECK(bad_port.status == 78);
    CHECK_THAT(bad_port.err, Contains("percent-encode") && !Contains("XYZ") && !Contains("hunter2"));
}

TEST_CASE("cli: config errors never show a provider password", "[cli][input][config]") {
    // Regression: an unterminated ${ or a wrong type printed the whole provider value.
    const auto unterminated =
        write_file("unterminated.toml", "[shedlock]\nprovider = \"postgresql://app:hunter2XYZ@${DB_HOST/ops\"\n");
    auto r = run_cli({"daemon", "-c", unterminated, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("unterminated.toml:2") && Contains("without a closing") && !Contains("hunter2XYZ"));
    const auto wrong_type = write_file("wrong-type.toml", "[shedlock]\nprovider = [\"postgresql://app:hunter2XYZ@db/ops\"]\n");
    r = run_cli({"daemon", "-c", wrong_type, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("wrong-type.toml:2") && Contains("must be a string") && !Contains("hunter2XYZ"));
    const auto env_value = write_file("env-value.toml", "[tasks.a]\ncron = \"* * * * * *\"\ncommand = [\"true\"]\n"
                                                         "env = { TOKEN = \"hunter2XYZ${\" }\n");
    r = run_cli({"daemon", "-c", env_value, "--dry-run"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, !Contains("hunter2XYZ"));
}

TEST_CASE("cli: --config that is not a regular file is refused at once", "[cli][input][config]") {
    // Regressions: a FIFO or /dev/zero hung; a directory read as an empty file.
    const std::string fifo = scratch_dir() + "/config.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::string& path : {fifo, std::string("/dev/zero"), scratch_dir()}) {
        const auto start = std::chrono::steady_clock::now();
        auto r = run_cli({"daemon", "-c", path, "--dry-run"});
        INFO(path << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains(path) && Contains("cannot be read"));
        // Refused at once, not read: generous for a loaded machine (a FIFO that hangs never returns,
        // and /dev/zero read to its end would take far longer).
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds{30});
    }
}

TEST_CASE("cli daemon: a cron step near INT_MAX is a schedule, not a crash", "[cli][input]") {
    // Regression: `1/2147483647 * * * * *` exited 70 with a bitset::set message.
    const auto config = write_file("step.toml", "[tasks.a]\ncron = \"1/2147483647 * * * * *\"\nlock_at_most_for = \"1m\"\n"
                                                 "command = [\"true\"]\n");
    auto r = run_cli({"daemon", "-c", config, "--dry-run", "--count", "2"});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains(":01.000Z"));
}

TEST_CASE("cli run: lock names compare byte for byte and count characters, on every backend", "[cli][input]") {
    // Regressions: on MySQL/MariaDB "report-é", "REPORT-É", "Report-e", "Report-è" and "Report-é "
    // were all held while "Report-é" was; 40 x "ü" (80 bytes) was refused as 80 characters.
    for (const auto& uri : backend_uris("cli_names")) {
        const std::string marker = scratch_dir() + "/names-holder-" + std::to_string(std::hash<std::string>{}(uri));
        const pid_t holder = start_cli({"run", "-p", uri, "-n", "Report-\xc3\xa9", "--at-most", "1m", "--", "sh", "-c",
                                        "echo x > " + marker + "; sleep 5"});
        REQUIRE(wait_for_file(marker, 10));
        for (const std::string name : {"report-\xc3\xa9", "REPORT-\xc3\x89", "Report-e", "Report-\xc3\xa8", "Report-\xc3\xa9 "}) {
            auto r = run_cli({"run", "-p", uri, "-n", name, "--at-most", "1m", "--", "true"});
            INFO(uri << " name \"" << name << "\": " << r.err);
            CHECK(r.status == 0);
        }
        CHECK(run_cli({"run", "-p", uri, "-n", "Report-\xc3\xa9", "--at-most", "1m", "--", "true"}).status == 75);
        std::string umlauts;
        for (int i = 0; i < 40; ++i) umlauts += "\xc3\xbc";
        auto wide = run_cli({"run", "-p", uri, "-n", umlauts, "--at-most", "1m", "--", "true"});
        INFO(uri << ": " << wide.err);
        CHECK(wide.status == 0);
        ::kill(holder, SIGTERM);
        wait_cli(holder);
    }
}

TEST_CASE("cli run: with java_compat, lock \"x:fence\" is not blocked by lock x's counter", "[cli][input]") {
    // Regression: the fence key of lock x was the lock key of lock "x:fence", which never expires.
    const std::string uri = test_server_uri("SHEDLOCK_TEST_REDIS_URI") + "?java_compat=true&env=cli-java-" + std::to_string(::getpid());
    REQUIRE(run_cli({"run", "-p", uri, "-n", "x", "--at-most", "1m", "--", "true"}).status == 0);
    auto r = run_cli({"run", "-p", uri, "-n", "x:fence", "--at-most", "1m", "--", "true"});
    INFO(r.err);
    CHECK(r.status == 0);
}
