// The status server on a real socket: every endpoint, status codes, JSON shape, bearer token,
// bad addresses and a port in use (the scheduler keeps running through all of them).
#include "http_get.hpp"
#include "unavailable_provider.hpp"
#include "wait_for.hpp"

#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/status_server.hpp>

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::http_get;
using shedlock::test::wait_for;

namespace {

status_server_options listen_on(std::string address, std::uint16_t port = 0, std::string token = {}) {
    status_server_options o;
    o.address = std::move(address);
    o.port = port;
    o.bearer_token = std::move(token);
    o.backend = "memory:";
    return o;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A scheduler with a succeeding, a failing (with a URI in its message) and a slow task.
struct served_scheduler {
    providers::memory_lock_provider locks;
    memory_run_store store;
    metrics_registry metrics;
    std::unique_ptr<scheduler> s;
    std::atomic<int> ok_runs{0}, bad_runs{0};

    explicit served_scheduler(lock_provider* provider = nullptr) {
        scheduler_options o;
        o.metrics = &metrics;
        o.provider_name = "memory";
        s = std::make_unique<scheduler>(provider ? *provider : locks, store, o);
        s->add(make_task("ok", [this](task_context&) { ++ok_runs; }, fixed_rate(20ms), lock_at_most_for("PT10S")));
        s->add(make_task("bad", [this](task_context&) {
            ++bad_runs;
            throw std::runtime_error("cannot reach postgresql://app:hunter2@db:5432/x");
        }, fixed_rate(20ms), lock_at_most_for("PT10S")));
        s->add(make_task("slow", [](task_context& ctx) {
            for (int i = 0; i < 4000 && !ctx.cancellation_requested(); ++i) std::this_thread::sleep_for(5ms);
        }, fixed_rate(1h), lock_at_most_for("PT1M")));
        s->start();
    }
};

}  // namespace

TEST_CASE("status server: every endpoint answers on a real socket", "[status_server]") {
    served_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, listen_on("127.0.0.1"));
    const auto port = server->port();
    REQUIRE(port != 0);
    REQUIRE(wait_for([&] { return app.ok_runs.load() >= 3 && app.bad_runs.load() >= 3; }, 10s));

    const auto metrics = http_get(port, "/metrics");
    CHECK(metrics.status == 200);
    CHECK(metrics.headers.at("content-type") == "text/plain; version=0.0.4; charset=utf-8");
    CHECK(contains(metrics.body, "shedlock_task_runs_total{task=\"ok\",outcome=\"succeeded\"} "));
    CHECK(contains(metrics.body, "shedlock_task_runs_total{task=\"bad\",outcome=\"failed\"} "));
    CHECK(contains(metrics.body, "# TYPE shedlock_lock_acquire_seconds histogram"));

    const auto health = http_get(port, "/healthz");
    CHECK(health.status == 200);
    CHECK(health.body == "ok\n");

    const auto tasks = http_get(port, "/api/tasks");
    CHECK(tasks.status == 200);
    CHECK(tasks.headers.at("content-type") == "application/json");
    CHECK(tasks.body.rfind("{\"now\":\"", 0) == 0);
    CHECK(contains(tasks.body, "{\"name\":\"bad\",\"schedule\":"));
    CHECK(contains(tasks.body, "\"last_outcome\":\"failed\""));
    CHECK(contains(tasks.body, "\"last_outcome\":\"succeeded\""));
    CHECK(contains(tasks.body, "\"lock\":{\"name\":\"slow\",\"locked_by\":"));  // slow holds its lock now
    CHECK_FALSE(contains(tasks.body, "hunter2"));
    CHECK(contains(tasks.body, "postgresql://app:***@db:5432/x"));

    const auto locks = http_get(port, "/api/locks");
    CHECK(locks.status == 200);
    CHECK(contains(locks.body, "\"locks\":[{"));
    CHECK(contains(locks.body, "\"name\":\"slow\""));
    CHECK(contains(locks.body, "\"held\":true"));

    const auto runs = http_get(port, "/api/runs?task=ok&limit=2");
    CHECK(runs.status == 200);
    std::size_t n = 0;
    // Each run names its task; the query is echoed once before them ("task":"ok","instance":null).
    for (auto at = runs.body.find("{\"task\":\"ok\""); at != std::string::npos; at = runs.body.find("{\"task\":\"ok\"", at + 1)) ++n;
    CHECK(n == 2);
    CHECK(contains(http_get(port, "/api/runs").body, "\"task\":\"bad\""));
    CHECK(http_get(port, "/api/runs?task=nope").status == 404);
    CHECK(http_get(port, "/api/runs?limit=abc").status == 400);

    const auto page = http_get(port, "/");
    CHECK(page.status == 200);
    CHECK(page.headers.at("content-type") == "text/html; charset=utf-8");
    CHECK(contains(page.body, "<tr data-task=\"ok\">"));
    CHECK(page.body.find("<tr data-task=\"bad\">") < page.body.find("<tr data-task=\"ok\">"));  // problems first
    CHECK(contains(page.body, "class=\"badge last o-failed\">failed</span>"));
    CHECK_FALSE(contains(page.body, "hunter2"));
    CHECK_FALSE(contains(page.body, "http://"));  // self-contained: nothing loaded from elsewhere
    CHECK_FALSE(contains(page.body, "https://"));

    CHECK(http_get(port, "/nope").status == 404);
    CHECK(shedlock::test::http_request(port, "POST", "/metrics").status == 405);
    const auto head = shedlock::test::http_request(port, "HEAD", "/healthz");
    CHECK(head.status == 200);
    CHECK(head.body.empty());
    app.s->stop(2s);
    CHECK(http_get(port, "/healthz").status == 0);  // stop() closed the server
}

TEST_CASE("status server: the bearer token guards everything but /healthz", "[status_server]") {
    served_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, listen_on("127.0.0.1", 0, "s3cret"));
    const auto port = server->port();
    const auto missing = http_get(port, "/metrics");
    CHECK(missing.status == 401);
    CHECK(missing.headers.count("www-authenticate") == 1);
    CHECK(http_get(port, "/api/tasks", "Bearer wrong!").status == 401);
    CHECK(http_get(port, "/api/tasks", "Bearer s3cre").status == 401);
    CHECK(http_get(port, "/", "Basic s3cret").status == 401);
    CHECK(http_get(port, "/api/tasks", "Bearer s3cret").status == 200);
    CHECK(http_get(port, "/healthz").status == 200);
}

TEST_CASE("status server: /healthz is 503 with the reason when the backend is down", "[status_server]") {
    test::unavailable_provider down("connection refused by postgresql://app:hunter2@db/x");
    served_scheduler app(&down);
    auto server = serve_status(*app.s, &app.metrics, listen_on("127.0.0.1"));
    const auto health = http_get(server->port(), "/healthz");
    CHECK(health.status == 503);
    CHECK(contains(health.body, "backend does not answer: connection refused"));
    CHECK_FALSE(contains(health.body, "hunter2"));
    CHECK(http_get(server->port(), "/api/locks").status == 503);
    CHECK(http_get(server->port(), "/").status == 200);  // the page still shows the tasks
}

TEST_CASE("status server: a port in use and bad addresses are clear errors and scheduling goes on", "[status_server]") {
    served_scheduler app;
    auto first = serve_status(*app.s, &app.metrics, listen_on("127.0.0.1"));
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, listen_on("127.0.0.1", first->port())),
                      Catch::Contains("cannot serve HTTP on 127.0.0.1:" + std::to_string(first->port())) &&
                          Catch::Contains("another process uses this port"));
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, listen_on("not-an-ip")),
                      Catch::Contains("is not an IP address"));
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, listen_on("192.0.2.1")),
                      Catch::Contains("use a local address"));
    const int before = app.ok_runs.load();
    CHECK(wait_for([&] { return app.ok_runs.load() >= before + 3; }, 10s));
    CHECK(http_get(first->port(), "/healthz").status == 200);
}

TEST_CASE("status server: its heartbeat record lives while it serves and is deleted after", "[status_server]") {
    served_scheduler app;
    const auto heartbeat = [&]() -> std::optional<lock_record> {
        for (auto& r : inspect(app.locks).list_locks())
            if (r.name.rfind("shedlock-heartbeat:100:", 0) == 0) return r;
        return std::nullopt;
    };
    auto options = listen_on("127.0.0.1");
    options.heartbeat_every = 100ms;  // the shortest allowed
    {
        auto server = serve_status(*app.s, &app.metrics, options);
        REQUIRE(wait_for([&] { return heartbeat().has_value(); }, 10s));
        const auto first = *heartbeat();
        CHECK(first.name.size() == std::string("shedlock-heartbeat:100:").size() + 16);  // fits 64 characters
        CHECK(process_of_owner(first.locked_by) == this_process());
        CHECK(first.lock_until - inspect(app.locks).lock_time_now() > 23h);  // outlives the process on every backend
        CHECK(wait_for([&] { return heartbeat()->lock_until > first.lock_until; }, 10s));  // renewed
        CHECK(contains(http_get(server->port(), "/api/locks").body, "\"name\":\"" + first.name + "\""));
    }
    CHECK_FALSE(heartbeat().has_value());  // a clean stop leaves no record to look stopped
    options.heartbeat_every = 0ms;
    {
        auto server = serve_status(*app.s, &app.metrics, options);
        CHECK(http_get(server->port(), "/healthz").status == 200);
        CHECK_FALSE(heartbeat().has_value());
    }
    options.heartbeat_every = -1ms;
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, options), Catch::Contains("heartbeat_every -1 ms is out of range"));
    options.heartbeat_every = 2h;
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, options), Catch::Contains("give 100 ms to 1 h"));
    options.heartbeat_every = 1ms;  // a thousand backend writes a second
    CHECK_THROWS_WITH(serve_status(*app.s, &app.metrics, options),
                      Catch::Contains("heartbeat_every 1 ms is out of range") && Catch::Contains("give 100 ms to 1 h"));
}

TEST_CASE("parse_http_address: host:port forms and errors", "[status_server]") {
    status_server_options o;
    parse_http_address("127.0.0.1:9464", o);
    CHECK(o.address == "127.0.0.1");
    CHECK(o.port == 9464);
    parse_http_address("[::1]:80", o);
    CHECK(o.address == "::1");
    CHECK(o.port == 80);
    parse_http_address("localhost:0", o);
    CHECK(o.address == "localhost");
    CHECK_THROWS_WITH(parse_http_address("127.0.0.1", o), Catch::Contains("has no port"));
    CHECK_THROWS_WITH(parse_http_address("127.0.0.1:99999", o), Catch::Contains("not a number from 0 to 65535"));
    CHECK_THROWS_WITH(parse_http_address("127.0.0.1:", o), Catch::Contains("not a number"));
    CHECK_THROWS_WITH(parse_http_address(":9464", o), Catch::Contains("has no host"));
    CHECK_THROWS_WITH(parse_http_address("example.com:9464", o), Catch::Contains("host names are not resolved"));
    CHECK_THROWS_WITH(parse_http_address("::1:9464", o), Catch::Contains("IPv6 without brackets"));
}
