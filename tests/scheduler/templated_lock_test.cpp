// Tasks whose lock name is a template rendered per firing (`tpl-{datetime}`): the status shows the
// lock of the current firing, metrics keep one series per template however many names are
// rendered, and expired records of rendered names are removed after the retention.
#include "http_get.hpp"
#include "lock_name_template.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/status_server.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <sstream>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

bool has_text(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::set<std::string> rendered_names(run_store& store, const std::string& task) {
    std::set<std::string> names;
    for (const auto& r : store.last_runs(task, 1000)) names.insert(r.lock_name);
    return names;
}

}  // namespace

TEST_CASE("templated lock: the status shows the lock of the running firing, not the start-up name",
          "[scheduler][templated_lock]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::mutex mutex;
    std::string held_name;
    std::atomic<bool> started{false}, release{false};
    // The first firing 1.5 s after start: its {datetime} differs from the name rendered at start.
    s.add(make_task("tpl", [&](task_context& ctx) {
        {
            std::lock_guard lock(mutex);
            held_name = ctx.lock_name();
        }
        started = true;
        wait_for([&] { return release.load() || ctx.cancellation_requested(); }, 30s);
    }, fixed_rate(1h, 1500ms), lock_at_most_for("PT1M"), lock_name("tpl-{datetime}")));
    s.start();
    const auto start_up_name = s.task_statuses().at(0).lock_name;
    status_server_options listen;
    listen.port = 0;
    auto server = serve_status(s, nullptr, listen);
    REQUIRE(wait_for([&] { return started.load(); }, 20s));
    const std::string held = [&] {
        std::lock_guard lock(mutex);
        return held_name;
    }();
    CHECK(held != start_up_name);

    CHECK(s.task_statuses().at(0).lock_name == held);
    const auto tasks = test::http_get(server->port(), "/api/tasks").body;
    const auto lock = tasks.find("\"lock\":{\"name\":\"" + held + "\"");
    CHECK(lock != std::string::npos);
    if (lock != std::string::npos) CHECK(has_text(tasks.substr(lock, tasks.find('}', lock) - lock), "\"held\":true"));
    release = true;
    s.stop(5s);
}

TEST_CASE("templated lock: a lease kept past lock_at_most_for is flagged stale under the current name",
          "[scheduler][templated_lock]") {
    // The overrun check looks the task's lock up by name: with the start-up name it never fired.
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    std::atomic<bool> started{false}, release{false};
    s.add(make_task("overrun", [&](task_context& ctx) {
        started = true;
        wait_for([&] { return release.load() || ctx.cancellation_requested(); }, 30s);
    }, fixed_rate(1h, 1500ms), lock_at_most_for("PT0.3S"), keep_alive(), lock_name("overrun-{datetime}")));
    s.start();
    status_server_options listen;
    listen.port = 0;
    auto server = serve_status(s, nullptr, listen);
    REQUIRE(wait_for([&] { return started.load(); }, 20s));
    // The keep-alive extends the lease every 150 ms; once it is held over 300 ms it is stale.
    CHECK(wait_for([&] {
        const auto tasks = test::http_get(server->port(), "/api/tasks").body;
        return has_text(tasks, "\"stale\":true") && has_text(tasks, "longer than its lock_at_most_for PT0.3S");
    }, 20s));
    release = true;
    s.stop(5s);
}

TEST_CASE("templated lock: metrics have one series per template however many names are rendered",
          "[scheduler][templated_lock][metrics]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    metrics_registry metrics;
    scheduler_options o;
    o.metrics = &metrics;
    scheduler s(locks, store, o);
    s.add(make_task("tpl", [](task_context&) {}, fixed_rate(150ms), lock_at_most_for("PT1M"),
                    lock_name("tpl-{datetime}")));
    s.start();
    // Four names: the firings crossed three second boundaries.
    REQUIRE(wait_for([&] { return rendered_names(store, "tpl").size() >= 4; }, 20s));
    s.stop(5s);
    const auto runs = store.last_runs("tpl", 1000).size();

    std::istringstream text(metrics.metrics_text());
    std::size_t lock_series = 0;
    for (std::string line; std::getline(text, line);) {
        if (!has_text(line, "lock=\"")) continue;
        ++lock_series;
        INFO(line);
        CHECK(has_text(line, "lock=\"tpl-{datetime}\""));  // labelled by the template
    }
    CHECK(lock_series == 4);  // attempts by 3 outcomes, and lock_held
    CHECK(metrics.counter("shedlock_lock_attempts_total", "", {{"lock", "tpl-{datetime}"}, {"outcome", "acquired"}})
              .value() == runs);
    CHECK(metrics.gauge("shedlock_lock_held", "", {{"lock", "tpl-{datetime}"}}).value() == 0);
}

TEST_CASE("templated lock: expired records of rendered names are deleted after the retention",
          "[scheduler][templated_lock]") {
    const auto real_now = system_clock::instance().now();
    manual_clock lock_time(real_now - 48h);
    providers::memory_lock_provider locks(lock_time);
    const auto seed = [&](const std::string& name, std::chrono::milliseconds lease) {
        auto handle = locks.try_lock(lock_configuration(name, lease));
        REQUIRE(handle);
        return std::move(*handle);
    };
    // Two days ago: names of the task's template that expired long ago, one still held (a 3-day
    // lease), and a name of another template.
    (void)seed("tpl-20201201T000000", 1s).unlock();
    (void)seed("tpl-20201201T000001", 1s).unlock();
    auto still_held = seed("tpl-20201201T000002", 72h);
    (void)seed("other-20201201T000000", 1s).unlock();
    // Half an hour ago: expired, but within the retention.
    lock_time.set(real_now - 30min);
    (void)seed("tpl-20201201T000003", 1s).unlock();
    lock_time.set(real_now);

    memory_run_store store;
    scheduler_options o;
    o.rendered_lock_retention = 1h;
    scheduler s(locks, store, o);
    std::atomic<int> runs{0};
    s.add(make_task("tpl", [&](task_context&) { ++runs; }, fixed_rate(50ms), lock_at_most_for("PT1M"),
                    lock_name("tpl-{datetime}")));
    const auto names = [&] {
        std::set<std::string> out;
        for (const auto& r : inspect(locks).list_locks()) out.insert(r.name);
        return out;
    };
    s.start();
    CHECK(wait_for([&] { return names().count("tpl-20201201T000000") == 0 && runs.load() >= 3; }, 20s));
    s.stop(5s);
    const auto left = names();
    CHECK(left.count("tpl-20201201T000000") == 0);
    CHECK(left.count("tpl-20201201T000001") == 0);
    CHECK(left.count("tpl-20201201T000002") == 1);    // held: never deleted
    CHECK(left.count("tpl-20201201T000003") == 1);    // expired within the retention
    CHECK(left.count("other-20201201T000000") == 1);  // not a name of this task's template
    CHECK(left.count(store.last_runs("tpl", 1).at(0).lock_name) == 1);  // the newest firing's
}

TEST_CASE("templated lock: a retention that is not positive is a start() error", "[scheduler][templated_lock]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler_options o;
    o.rendered_lock_retention = 0ms;
    scheduler s(locks, store, o);
    CHECK_THROWS_WITH(s.start(), Catch::Contains("rendered_lock_retention PT0S must be positive"));
}

TEST_CASE("templated lock: the sweep recognises exactly the names a template renders", "[scheduler][templated_lock]") {
    using detail::is_rendered_from;
    CHECK(is_rendered_from("tpl-{datetime}", "tpl-20261201T142450", ""));
    CHECK(is_rendered_from("r:{date}", "r:100000101", ""));  // year 10000 has five digits
    CHECK(is_rendered_from("{env}:settle:{date}", "prod:settle:20240601", "prod"));
    CHECK(is_rendered_from("{date}{date}", "2024060120240602", ""));
    CHECK_FALSE(is_rendered_from("{env}:settle:{date}", "dev:settle:20240601", "prod"));
    CHECK_FALSE(is_rendered_from("tpl-{datetime}", "tpl-20261201", ""));
    CHECK_FALSE(is_rendered_from("tpl-{datetime}", "tpl-20261201T14245x", ""));
    CHECK_FALSE(is_rendered_from("tpl-{datetime}", "other-20261201T142450", ""));
    CHECK_FALSE(is_rendered_from("tpl-{date}", "tpl-20240601-extra", ""));
    CHECK_FALSE(is_rendered_from("tpl-{week}", "tpl-202406", ""));
}
