// Bad input fails start() with a message naming the task and the value; nothing starts half-way.
#include "firing_witness.hpp"

#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

void noop(task_context&) {}

std::string start_error(std::vector<task_definition> tasks, scheduler_options options = {}) {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store, std::move(options));
    for (auto& t : tasks) s.add(std::move(t));
    try {
        s.start();
    } catch (const configuration_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("validation: each bad input names the task and the value", "[scheduler][validation]") {
    const std::vector<std::pair<task_definition, std::vector<std::string>>> table{
        {make_task("nightly", noop, cron("0 0 25 * * *"), lock_at_most_for("PT1M")),
         {"task \"nightly\"", "\"0 0 25 * * *\": hour 25 out of range 0-23"}},
        {make_task("zoned", noop, cron("0 0 2 * * *", "Mars/Base"), lock_at_most_for("PT1M")),
         {"task \"zoned\"", "time zone \"Mars/Base\""}},
        {make_task("zero", noop, fixed_rate(0ms), lock_at_most_for("PT1M")),
         {"task \"zero\"", "fixed_rate period PT0S must be > 0"}},
        {make_task("zero_delay", noop, fixed_delay(-5ms), lock_at_most_for("PT1M")),
         {"task \"zero_delay\"", "fixed_delay delay"}},
        {make_task("inverted", noop, fixed_rate(1s), lock_at_most_for("PT1S"), lock_at_least_for("PT5S")),
         {"task \"inverted\"", "lock_at_least_for"}},
        {make_task("no_lease", noop, fixed_rate(1s)), {"task \"no_lease\"", "has no lock_at_most_for"}},
        {make_task("bare", noop, fixed_rate(1s), lock_at_most_for("60000")), {"task \"bare\"", "\"60000\""}},
        {make_task("late", noop, fixed_rate(1s), lock_at_most_for("PT1M"), lock_at_least_for("soon")),
         {"task \"late\"", "lock_at_least_for", "\"soon\""}},
        {make_task("placeholder", noop, fixed_rate(1s), lock_at_most_for("PT1M"), lock_name("x:{week}")),
         {"task \"placeholder\"", "unknown placeholder {week}"}},
        {make_task("envless", noop, fixed_rate(1s), lock_at_most_for("PT1M"), lock_name("{env}:x")),
         {"task \"envless\"", "uses {env}"}},
        {make_task("never", noop, cron("0 0 0 30 2 *"), lock_at_most_for("PT1M")),
         {"task \"never\"", "matches no date"}},
        {make_task("bodiless", nullptr, fixed_rate(1s), lock_at_most_for("PT1M")), {"task \"bodiless\"", "no body"}},
    };
    for (const auto& [task, fragments] : table) {
        INFO(task.name);
        const auto message = start_error({task});
        for (const auto& f : fragments) CHECK_THAT(message, Catch::Contains(f));
    }
}

TEST_CASE("validation: duplicate task names fail start()", "[scheduler][validation]") {
    const auto message = start_error({make_task("dup", noop, fixed_rate(1s), lock_at_most_for("PT1M")),
                                      make_task("dup", noop, fixed_rate(2s), lock_at_most_for("PT1M"))});
    CHECK_THAT(message, Catch::Contains("task \"dup\" is registered twice"));
}

TEST_CASE("validation: every problem is listed at once", "[scheduler][validation]") {
    const auto message = start_error({make_task("a", noop, fixed_rate(0ms), lock_at_most_for("PT1M")),
                                      make_task("b", noop, cron("* * *"), lock_at_most_for("PT1M"))});
    CHECK_THAT(message, Catch::Contains("task \"a\"") && Catch::Contains("task \"b\""));
}

TEST_CASE("validation: the default lock_at_most_for fills in a missing one", "[scheduler][validation]") {
    scheduler_options options;
    options.default_lock_at_most_for = 1min;
    CHECK(start_error({make_task("ok", noop, fixed_rate(1h))}, options).empty());
}

TEST_CASE("validation: nothing starts half-way", "[scheduler][validation]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0};
    s.add(make_task("good", [&](task_context&) { ++runs; }, fixed_rate(10ms), lock_at_most_for("PT1M")));
    s.add(make_task("bad", noop, fixed_rate(0ms), lock_at_most_for("PT1M")));
    CHECK_THROWS_AS(s.start(), configuration_error);
    CHECK_FALSE(s.running());
    // Nothing fires, over a window in which a live scheduler at the same rate fired 10 times.
    REQUIRE(test::firing_witness(10ms).wait_for_firings(10));
    CHECK(runs.load() == 0);
    CHECK(store.tasks().empty());
    CHECK_THROWS_WITH(s.run_now("good"), Catch::Contains("not running"));
}

TEST_CASE("validation: disabled tasks are checked but never fire", "[scheduler][validation]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<int> runs{0};
    s.add(make_task("off", [&](task_context&) { ++runs; }, fixed_rate(10ms), lock_at_most_for("PT1M"), enabled(false)));
    s.add(make_task("dash", [&](task_context&) { ++runs; }, cron("-"), lock_at_most_for("PT1M")));
    s.start();
    // Never fire, over a window in which a live scheduler at the same rate fired 10 times.
    REQUIRE(test::firing_witness(10ms).wait_for_firings(10));
    CHECK(runs.load() == 0);
    CHECK(s.run_now("off").outcome == run_outcome::succeeded);  // a manual run still works
    s.stop(1s);
}

TEST_CASE("validation: adding a task after start() is refused", "[scheduler][validation]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    s.start();
    CHECK_THROWS_WITH(s.add(make_task("late", noop, fixed_rate(1s), lock_at_most_for("PT1M"))),
                      Catch::Contains("task \"late\" added after start()"));
    CHECK_THROWS_WITH(s.start(), Catch::Contains("already started"));
    s.stop(1s);
}

TEST_CASE("validation: a task name must be UTF-8 without controls or bidi overrides", "[scheduler][validation]") {
    // The name labels metrics (an invalid byte makes Prometheus drop the whole scrape) and shows on
    // the page and in terminals (ESC starts a terminal sequence, U+202E reverses the text after it).
    // An explicit lock name keeps the lock-name check out of the way: the task name is checked alone.
    const std::vector<std::pair<std::string, std::string>> table{
        {"name-\xe9-latin1", "task name \"name-\\xe9-latin1\" is not valid UTF-8 (byte 5)"},
        {"esc\x1b[31m", "task name \"esc\\x1b[31m\" contains a control character"},
        {"evil\xe2\x80\xaetxt.exe", "task name \"evil\\xe2\\x80\\xaetxt.exe\" contains the bidirectional "
                                    "formatting character U+202E"},
    };
    for (const auto& [name, expected] : table) {
        INFO(name);
        const auto message =
            start_error({make_task(name, noop, fixed_rate(1s), lock_at_most_for("PT1M"), lock_name("fine"))});
        CHECK_THAT(message, Catch::Contains(expected));
        CHECK_THAT(message, !Catch::Contains(name));  // the raw bytes are never echoed
    }
    CHECK(start_error({make_task("caf\xc3\xa9-r\xc3\xa9sum\xc3\xa9", noop, fixed_rate(1h), lock_at_most_for("PT1M"))})
              .empty());
}
