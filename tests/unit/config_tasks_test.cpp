#include <shedlock/config_tasks.hpp>
#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

void add_code_tasks(task_registry& registry) {
    registry.add("reconcile", [](task_context&) {}, cron("0 0 2 * * ?"), lock_at_most_for("PT30M"));
    registry.add("sync", [](task_context&) {}, fixed_delay(milliseconds{30'000}), lock_at_most_for("PT1M"),
                 lock_at_least_for("PT5S"));
    registry.add("instant", [](task_context&) {}, fixed_rate(milliseconds{60'000}), lock_at_most_for("PT1M"),
                 lock_at_least_for(milliseconds{0}));
}

std::optional<milliseconds> ms(std::int64_t n) { return milliseconds{n}; }

}  // namespace

TEST_CASE("config overrides schedules and policies of tasks registered in code", "[config]") {
    task_registry registry;
    add_code_tasks(registry);
    const auto config = parse_config(R"(
[shedlock]
default_lock_at_least_for = "PT2S"
env = "prod"
workers = 2
[tasks.reconcile]
cron = "0 30 3 * * ?"
zone = "Europe/Berlin"
lock_at_most_for = "PT45M"
lock_name = "reconcile:{date}"
keep_alive = true
[tasks.sync]
enabled = false
)", "app.toml");
    apply_config(registry, config);
    const auto* reconcile = registry.find("reconcile");
    CHECK(reconcile->schedule.expression == "0 30 3 * * ?");
    CHECK(reconcile->schedule.zone == "Europe/Berlin");
    CHECK(reconcile->lock_at_most_for == ms(45 * 60'000));
    CHECK(reconcile->lock_at_least_for == ms(2000));  // the file's default: the code set none
    CHECK(reconcile->lock_name == "reconcile:{date}");
    CHECK(reconcile->keep_alive);
    const auto* sync = registry.find("sync");
    CHECK_FALSE(sync->enabled);
    CHECK(sync->lock_at_least_for == ms(5000));  // the code's own value stays
    // Regression: an explicit 0 in code read as "unset" (the PT0S sentinel) and got the default.
    CHECK(registry.find("instant")->lock_at_least_for == ms(0));
    CHECK(sync->schedule.kind == trigger_kind::fixed_delay);

    providers::memory_lock_provider locks;
    memory_run_store runs;
    auto options = scheduler_options_from(config);
    CHECK(options.worker_threads == 2);
    CHECK(options.env == "prod");
    scheduler s(locks, runs, options);
    s.add(registry);
    CHECK_NOTHROW(s.start());  // the overridden values pass the scheduler's validation
    s.stop(milliseconds{1000});
}

TEST_CASE("config naming an unregistered task is an error with file and line", "[config]") {
    task_registry registry;
    add_code_tasks(registry);
    const auto config = parse_config("[tasks.reconcille]\ncron = \"0 0 3 * * ?\"\n", "app.toml");
    CHECK_THROWS_WITH(apply_config(registry, config),
                      Contains("app.toml:1") && Contains("[tasks.reconcille]") && Contains("reconcile, sync, instant"));
    const auto with_command = parse_config("[tasks.backup]\ncron = \"0 0 3 * * ?\"\ncommand = [\"true\"]\n", "d.toml");
    CHECK_NOTHROW(apply_config(registry, with_command));  // a daemon task, not a code task
}

TEST_CASE("config: a bad cron from the file fails scheduler start naming the task", "[config]") {
    task_registry registry;
    add_code_tasks(registry);
    apply_config(registry, parse_config("[tasks.reconcile]\ncron = \"0 0 25 * * *\"\n", "app.toml"));
    providers::memory_lock_provider locks;
    memory_run_store runs;
    scheduler s(locks, runs);
    s.add(registry);
    CHECK_THROWS_WITH(s.start(), Contains("reconcile") && Contains("hour 25 out of range 0-23"));
}

TEST_CASE("task_from_config builds a task from the file alone", "[config]") {
    const auto file = parse_config("[tasks.backup]\nfixed_rate = \"PT1H\"\ncommand = [\"backup.sh\"]\n[tasks.none]\n"
                                   "command = [\"x\"]\n", "d.toml");
    const auto task = task_from_config(file.task("backup"), file);
    CHECK(task.name == "backup");
    CHECK(task.schedule.kind == trigger_kind::fixed_rate);
    CHECK(task.schedule.period == milliseconds{3'600'000});
    CHECK_THROWS_WITH(task_from_config(file.task("none"), file), Contains("d.toml:4") && Contains("no schedule"));
}

TEST_CASE("config sets a task's idempotency_key and claim_for, bad values name file and line", "[config][idempotency]") {
    task_registry registry;
    add_code_tasks(registry);
    apply_config(registry, parse_config(R"(
[tasks.reconcile]
idempotency_key = "reconcile:{date}"
claim_for = "PT2H"
)", "app.toml"));
    CHECK(registry.find("reconcile")->idempotency_key == "reconcile:{date}");
    CHECK(registry.find("reconcile")->claim_for == ms(2 * 3'600'000));
    CHECK(registry.find("sync")->idempotency_key.empty());
    CHECK_THROWS_WITH(parse_config("[tasks.x]\nfixed_rate = \"PT1M\"\nclaim_for = \"PT0S\"\n", "app.toml"),
                      Contains("app.toml") && Contains("claim_for = \"PT0S\" must be positive"));
    CHECK_THROWS_WITH(parse_config("[tasks.x]\nfixed_rate = \"PT1M\"\nidempotency_key = \"\"\n", "app.toml"),
                      Contains("app.toml") && Contains("idempotency_key = \"\" is empty"));
    CHECK_THROWS_WITH(parse_config("[tasks.x]\nfixed_rate = \"PT1M\"\nidempotency_kee = \"k\"\n", "app.toml"),
                      Contains("idempotency_kee"));
}

TEST_CASE("config sets a task's wait_for_lock, a negative or too long one names file and key", "[config][wait]") {
    task_registry registry;
    add_code_tasks(registry);
    apply_config(registry, parse_config("[tasks.sync]\nwait_for_lock = \"PT45S\"\n", "app.toml"));
    CHECK(registry.find("sync")->wait_for_lock == milliseconds{45'000});
    CHECK(registry.find("reconcile")->wait_for_lock == milliseconds{0});  // not set: no wait
    CHECK_THROWS_WITH(parse_config("[tasks.x]\nfixed_rate = \"PT1M\"\nwait_for_lock = \"-5s\"\n", "app.toml"),
                      Contains("app.toml") && Contains("wait_for_lock") && Contains("negative"));
    CHECK_THROWS_WITH(parse_config("[tasks.x]\nfixed_rate = \"PT1M\"\nwait_for_lock = \"P4000D\"\n", "app.toml"),
                      Contains("app.toml") && Contains("wait_for_lock") && Contains("10 years"));
}

TEST_CASE("config: a bad value checked after reading names the key's own line, not the table's", "[config][wait]") {
    // The [tasks.x] header is on line 2; each bad key is on line 7.
    const std::string head = "# tasks\n[tasks.x]\nfixed_rate = \"PT1M\"\n\n# how long to wait\n\n";
    CHECK_THROWS_WITH(parse_config(head + "wait_for_lock = \"P3651D\"\n", "cfg.toml"),
                      Contains("cfg.toml:7") && Contains("wait_for_lock = \"P3651D\" is longer than 10 years"));
    CHECK_THROWS_WITH(parse_config(head + "lock_at_most_for = \"PT0S\"\n", "cfg.toml"),
                      Contains("cfg.toml:7") && Contains("lock_at_most_for = \"PT0S\" must be positive"));
    CHECK_THROWS_WITH(parse_config(head + "claim_for = \"PT0S\"\n", "cfg.toml"),
                      Contains("cfg.toml:7") && Contains("claim_for = \"PT0S\" must be positive"));
    CHECK_THROWS_WITH(parse_config(head + "idempotency_key = \"\"\n", "cfg.toml"),
                      Contains("cfg.toml:7") && Contains("idempotency_key = \"\" is empty"));
    CHECK_THROWS_WITH(parse_config(head + "zone = \"Europe/Berlin\"\n", "cfg.toml"),
                      Contains("cfg.toml:7") && Contains("zone = \"Europe/Berlin\" only applies to cron"));
}
