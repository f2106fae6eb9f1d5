// SHEDLOCK_SCHEDULED registers at static-init time; the builder and make_task build definitions.
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

using namespace std::chrono_literals;

namespace {
std::atomic<int> macro_runs{0};
}

SHEDLOCK_SCHEDULED(macro_tick, fixed_rate(std::chrono::milliseconds{30}), lock_at_most_for("PT10S"),
                   lock_at_least_for("PT0.01S")) {
    ctx.count("ticks");
    ++macro_runs;
}

SHEDLOCK_SCHEDULED(reconcile, cron("0 0 2 * * ?", "Europe/Berlin"), lock_at_most_for("PT30M"),
                   lock_at_least_for("PT5S"), lock_name("reconcile:{date}"), enabled(false)) {}

TEST_CASE("registry: SHEDLOCK_SCHEDULED registered both tasks before main", "[scheduler][registry]") {
    auto& registry = shedlock::global_task_registry();
    const auto* tick = registry.find("macro_tick");
    REQUIRE(tick);
    CHECK(tick->schedule.kind == shedlock::trigger_kind::fixed_rate);
    CHECK(tick->schedule.period == 30ms);
    CHECK(tick->lock_at_most_for == std::optional<std::chrono::milliseconds>{std::chrono::seconds{10}});
    CHECK(tick->lock_at_least_for == std::optional<std::chrono::milliseconds>{std::chrono::milliseconds{10}});
    const auto* nightly = registry.find("reconcile");
    REQUIRE(nightly);
    CHECK(nightly->schedule.describe() == "cron(\"0 0 2 * * ?\", Europe/Berlin)");
    CHECK(nightly->lock_name == "reconcile:{date}");
    CHECK_FALSE(nightly->enabled);
}

TEST_CASE("registry: a scheduler runs the macro-registered tasks", "[scheduler][registry]") {
    shedlock::providers::memory_lock_provider locks;
    shedlock::memory_run_store store;
    shedlock::scheduler s(locks, store);
    s.add(shedlock::global_task_registry());
    s.start();
    REQUIRE(shedlock::test::wait_for([] { return macro_runs.load() >= 3; }, 2s));
    s.stop(1s);
    // Every firing that ran the body counted one tick. The newest record need not be one of them:
    // on a loaded machine a late firing can land inside the previous one's lock_at_least_for
    // (skipped_locked), and such records carry no counters.
    int ran = 0;
    for (const auto& r : store.last_runs("macro_tick", 1000)) {
        if (r.outcome != shedlock::run_outcome::succeeded) continue;
        ++ran;
        INFO("firing scheduled at " << shedlock::format_timestamp(r.scheduled_at));
        REQUIRE(r.counters.count("ticks") == 1);
        CHECK(r.counters.at("ticks") == 1);
    }
    CHECK(ran >= 3);
    CHECK(store.last_runs("reconcile", 1).empty());  // disabled
}

TEST_CASE("registry: the builder and make_task produce the same definition", "[scheduler][registry]") {
    using namespace shedlock;
    const auto built = task_builder("b")
                           .schedule(fixed_delay(2s, 1s))
                           .lock_at_most_for("PT1M")
                           .lock_at_least_for("5s")
                           .lock_name("b:{env}")
                           .keep_alive()
                           .body([](task_context&) {})
                           .build();
    const auto made = make_task("b", [](task_context&) {}, fixed_delay(2s, 1s), lock_at_most_for("PT1M"),
                                lock_at_least_for("5s"), lock_name("b:{env}"), keep_alive());
    CHECK(built.schedule.describe() == made.schedule.describe());
    CHECK(built.schedule.describe() == "fixed_delay(PT2S, PT1S)");
    CHECK(built.lock_at_most_for == made.lock_at_most_for);
    CHECK(built.lock_at_least_for == made.lock_at_least_for);
    CHECK(built.lock_name == made.lock_name);
    CHECK(built.keep_alive == made.keep_alive);
    task_registry registry;
    registry.add("x", [](task_context&) {}, aligned_rate(1s));
    registry.add(built);
    CHECK(registry.size() == 2);
    CHECK(registry.find("x")->schedule.aligned);
}
