#include <shedlock/config.hpp>
#include <shedlock/config_tasks.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

TEST_CASE("config: a full file reads into typed values", "[config]") {
    ::setenv("SHEDLOCK_TEST_DB", "/srv/locks.db", 1);
    ::unsetenv("SHEDLOCK_TEST_UNSET");
    const auto c = parse_config(R"(
[shedlock]
provider = "sqlite:${SHEDLOCK_TEST_DB}"
instance = "${SHEDLOCK_TEST_UNSET:web-1}"
env = "prod"
default_lock_at_most_for = "PT10M"
workers = 8

[tasks.report]
cron = "0 0 2 * * ?"
zone = "Europe/Berlin"
lock_at_most_for = "2h"
lock_name = "report:{date}"
keep_alive = true
command = ["/usr/bin/report", "--day", "{date}"]
timeout = "PT3H"
env = { DIR = "/srv/${SHEDLOCK_TEST_UNSET:reports}" }

[tasks.sync]
fixed_delay = "30s"
enabled = false
)", "app.toml");
    CHECK(c.provider == "sqlite:/srv/locks.db");
    CHECK(c.instance == "web-1");
    CHECK(c.default_lock_at_most_for == milliseconds{600'000});
    CHECK(c.workers == 8);
    const auto& report = c.task("report");
    CHECK(report.cron == std::optional<std::string>{"0 0 2 * * ?"});
    CHECK(report.lock_at_most_for == milliseconds{7'200'000});
    CHECK(report.command == std::vector<std::string>{"/usr/bin/report", "--day", "{date}"});
    CHECK(report.env.at("DIR") == "/srv/reports");
    CHECK(report.line == 9);
    CHECK(c.task("sync").enabled == std::optional<bool>{false});
    CHECK_THROWS_WITH(c.task("nope"), Contains("no [tasks.nope]") && Contains("report, sync"));
}

TEST_CASE("config: errors name the file, the line, the key and the value", "[config]") {
    CHECK_THROWS_WITH(parse_config("[shedlock]\nprovider = \"memory:\"\ndefault_lock_at_most_fro = \"PT1M\"\n", "a.toml"),
                      Contains("a.toml:3") && Contains("unknown key \"default_lock_at_most_fro\"") &&
                          Contains("did you mean \"default_lock_at_most_for\""));
    CHECK_THROWS_WITH(parse_config("[tasks.x]\ncron = \"* * * * * *\"\nlock_at_most_for = \"60000\"\n", "b.toml"),
                      Contains("b.toml:3") && Contains("\"60000\"") && Contains("PT30S"));
    ::unsetenv("SHEDLOCK_TEST_UNSET");
    CHECK_THROWS_WITH(parse_config("[shedlock]\n\nprovider = \"${SHEDLOCK_TEST_UNSET}\"\n", "c.toml"),
                      Contains("c.toml:3") && Contains("SHEDLOCK_TEST_UNSET is not set"));
    CHECK_THROWS_WITH(parse_config("[shedlock]\nworkers = \"four\"\n", "d.toml"),
                      Contains("d.toml:2") && Contains("workers = 'four'") && Contains("whole number"));
    CHECK_THROWS_WITH(parse_config("[shedlok]\nprovider = \"memory:\"\n", "e.toml"),
                      Contains("unknown key \"shedlok\"") && Contains("did you mean \"shedlock\""));
    CHECK_THROWS_WITH(parse_config("[tasks.x]\ncron = \"* * * * * *\"\nfixed_rate = \"1s\"\n", "f.toml"),
                      Contains("more than one of cron, fixed_rate, fixed_delay"));
    CHECK_THROWS_WITH(parse_config("[shedlock]\nprovider = \n", "g.toml"), Contains("g.toml:2"));
    CHECK_THROWS_WITH(load_config("/no/such/file.toml"), Contains("/no/such/file.toml") && Contains("cannot be read"));
}

TEST_CASE("config: lock_retention sets the scheduler's rendered_lock_retention", "[config]") {
    const auto c = parse_config("[shedlock]\nprovider = \"memory:\"\nlock_retention = \"PT2H\"\n", "r.toml");
    CHECK(c.lock_retention == milliseconds{7'200'000});
    CHECK(scheduler_options_from(c).rendered_lock_retention == milliseconds{7'200'000});
    CHECK(scheduler_options_from(parse_config("[shedlock]\nprovider = \"memory:\"\n", "d.toml")).rendered_lock_retention ==
          std::chrono::hours{24});
    CHECK_THROWS_WITH(parse_config("[shedlock]\nlock_retention = \"PT0S\"\n", "z.toml"),
                      Contains("z.toml") && Contains("lock_retention = \"PT0S\" must be positive"));
}

TEST_CASE("config: a bad [shedlock] value checked after reading names the key's own line", "[config]") {
    const std::string head = "[shedlock]\nprovider = \"memory:\"\n";
    CHECK_THROWS_WITH(parse_config(head + "lock_retention = \"PT0S\"\n", "r.toml"),
                      Contains("r.toml:3") && Contains("lock_retention = \"PT0S\" must be positive"));
    CHECK_THROWS_WITH(parse_config(head + "heartbeat = \"PT2H\"\n", "h.toml"),
                      Contains("h.toml:3") && Contains("heartbeat = \"PT2H\" must be at most PT1H"));
    // A floor: each beat is a backend write (PT0.001S was a thousand a second).
    CHECK_THROWS_WITH(parse_config(head + "heartbeat = \"PT0.001S\"\n", "f.toml"),
                      Contains("f.toml:3") && Contains("heartbeat = \"PT0.001S\" is below the floor PT0.1S"));
    CHECK(parse_config(head + "heartbeat = \"PT0.1S\"\n", "f.toml").heartbeat == std::chrono::milliseconds{100});
    CHECK(parse_config(head + "heartbeat = \"PT0S\"\n", "f.toml").heartbeat == std::chrono::milliseconds{0});
}
