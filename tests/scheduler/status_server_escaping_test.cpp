// The status server's answers stay valid whatever bytes reach them: a failure message or a metric
// label with bytes that are not UTF-8 must not make the JSON unparsable, the /metrics page
// unscrapable (Prometheus drops the whole scrape), or be echoed raw from a query string.
#include "http_get.hpp"
#include "json_check.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/status_server.hpp>
#include <shedlock/utf8.hpp>

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::http_get;
using shedlock::test::json_problem;
using shedlock::test::wait_for;

namespace {

/// Empty when `text` is well-formed UTF-8, else where it is not.
std::string utf8_problem(const std::string& text) {
    for (std::size_t pos = 0; pos < text.size();) {
        const auto decoded = decode_utf8_at(text, pos);
        if (!decoded) return "invalid UTF-8 at byte " + std::to_string(pos) + ": " + printable_text(text.substr(pos, 40));
        pos += decoded->length;
    }
    return {};
}

}  // namespace

TEST_CASE("status server: JSON, metrics and page stay valid with invalid UTF-8 in messages and labels",
          "[status_server]") {
    providers::memory_lock_provider locks;
    memory_run_store store;
    metrics_registry metrics;
    scheduler_options o;
    o.metrics = &metrics;
    scheduler s(locks, store, o);
    std::atomic<int> bad_runs{0};
    s.add(make_task("latin1", [&](task_context&) {
        ++bad_runs;
        throw std::runtime_error("cannot open r\xe9sum\xe9.txt: \xff\xfe");
    }, fixed_rate(20ms), lock_at_most_for("PT10S")));
    // An application's own series on the same registry, with a label value it did not check.
    metrics.counter("app_imports_total", "Imports by file", {{"file", "name-\xe9-latin1"}}).inc();
    s.start();
    status_server_options listen;
    listen.port = 0;  // any free port
    auto server = serve_status(s, &metrics, listen);
    REQUIRE(wait_for([&] { return bad_runs.load() >= 2; }, 10s));

    for (const char* path : {"/api/tasks", "/api/runs", "/api/runs?task=latin1", "/api/locks"}) {
        INFO(path);
        const auto reply = http_get(server->port(), path);
        CHECK(reply.status == 200);
        const auto problem = json_problem(reply.body);
        CHECK_FALSE(problem);
        if (problem) FAIL_CHECK(*problem << " in " << printable_text(reply.body, 400));
        const bool shows_message = std::string(path) != "/api/locks";
        if (shows_message) CHECK(reply.body.find("r\\\\xe9sum\\\\xe9.txt: \\\\xff\\\\xfe") != std::string::npos);
    }

    const auto unknown = http_get(server->port(), "/api/runs?task=%ff");
    CHECK(unknown.status == 404);
    CHECK_FALSE(json_problem(unknown.body));
    CHECK(unknown.body.find('\xff') == std::string::npos);  // not echoed raw

    const auto scrape = http_get(server->port(), "/metrics");
    CHECK(scrape.status == 200);
    CHECK(utf8_problem(scrape.body).empty());
    CHECK(scrape.body.find("app_imports_total{file=\"name-\\\\xe9-latin1\"} 1") != std::string::npos);

    const auto page = http_get(server->port(), "/");
    CHECK(page.status == 200);
    CHECK(utf8_problem(page.body).empty());
    s.stop(2s);
}
