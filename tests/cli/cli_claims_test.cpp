// End-to-end: `shedlock run --once-key` and `shedlock claims` on a real SQLite file.
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

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
