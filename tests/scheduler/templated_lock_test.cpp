// Tasks whose lock name is a template rendered per firing (`tpl-{datetime}`): the status shows the
// lock of the current firing, metrics keep one series per template however many names are
// rendered, and expired records of rendered names are removed after the retention.
#include "http_get.hpp"
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
