// serve_status over the scheduler on the application's executor (shedlock::asio_status): one
// thread runs the io_context that carries the scheduler, its coroutine task and the server's
// sockets; the server's backend calls stay on its own threads, so a hanging list_locks leaves the
// application's timers and /metrics alone. stop() of the scheduler closes the server.
#include "asio_scheduler_support.hpp"
#include "http_get.hpp"
#include "wait_for.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/asio/status_server.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

using namespace shedlock;
using namespace std::chrono_literals;
using boost::asio::awaitable;
using shedlock::test::http_get;
using shedlock::test::wait;
using shedlock::test::wait_for;

namespace {

/// The application's io_context on ONE thread, the memory provider behind a pool, a run store.
struct harness {
    test::io_thread io;  // first: outlives everything that completes on it
    std::shared_ptr<providers::memory_lock_provider> locks = std::make_shared<providers::memory_lock_provider>();
    std::shared_ptr<asio::blocking_pool> pool = std::make_shared<asio::blocking_pool>(2);
    asio::pooled_lock_service service{locks, io.executor(), pool};
    memory_run_store runs;
};

/// A coroutine task that suspends (timers, no blocking) until `release` is set.
asio::async_task held_task(std::atomic<bool>& inside, std::atomic<bool>& release) {
    return asio::make_async_task("report", [&inside, &release](task_context&) -> awaitable<void> {
        inside = true;
        while (!release.load()) co_await wait(20ms);
        inside = false;
    }, fixed_rate(1h), lock_at_most_for(30s));
}

status_server_options local_options() {
    status_server_options o;
    o.port = 0;
    o.heartbeat_every = 100ms;
    return o;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The JSON object of lock `name` in a /api/locks answer (empty when absent).
std::string lock_entry(const std::string& body, const std::string& name) {
    const auto from = body.find("{\"name\":\"" + name + "\"");
    return from == std::string::npos ? std::string{} : body.substr(from, body.find('}', from) - from + 1);
}

/// Lists the memory provider's records; list_locks() blocks while frozen (a backend that does not
/// answer), at most 5 s so that a failing test still ends.
class freezable_inspection final : public lock_provider, public lock_inspector {
public:
    explicit freezable_inspection(providers::memory_lock_provider& records) : records_(records) {}
    bool supports_fencing() const override { return true; }
    lock_inspector* inspector() noexcept override { return this; }
    timestamp lock_time_now() override { return records_.lock_time_now(); }
    std::vector<lock_record> list_locks() override {
        std::unique_lock lock(mutex_);
        thawed_.wait_for(lock, 5s, [this] { return !frozen_; });
        return records_.list_locks();
    }
    void set_frozen(bool frozen) {
        {
            std::lock_guard lock(mutex_);
            frozen_ = frozen;
        }
        thawed_.notify_all();
    }

private:
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override { return std::nullopt; }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }
    void do_force_release(const lock_record&, timestamp) override {}
    providers::memory_lock_provider& records_;
    std::mutex mutex_;
    std::condition_variable thawed_;
    bool frozen_ = false;
};

}  // namespace

TEST_CASE("asio status server: the endpoints over an asio scheduler on one io_context thread", "[asio_status]") {
    harness h;
    std::atomic<bool> inside{false}, release{false};
    metrics_registry metrics;
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(held_task(inside, release));
    s.start();
    const auto server = serve_status(s, *h.locks, &metrics, local_options());
    const auto without_metrics = serve_status(s, *h.locks, nullptr, local_options());
    const auto port = server->port();
    REQUIRE(wait_for([&] { return inside.load(); }, 3s));

    const auto statuses = s.async_task_statuses(boost::asio::use_future).get();
    REQUIRE(statuses.size() == 1);
    CHECK(statuses[0].name == "report");
    CHECK(statuses[0].lock_name == "report");
    CHECK(statuses[0].lock_at_most_for == 30s);
    CHECK(statuses[0].running);
    CHECK(statuses[0].next_fire.has_value());

    const auto health = http_get(port, "/healthz");
    CHECK(health.status == 200);
    CHECK(health.body == "ok\n");
    test::http_reply held;  // the body is suspended: its lock is held, beside the heartbeat record
    CHECK(wait_for([&] { return contains((held = http_get(port, "/api/locks")).body, "shedlock-heartbeat:100:"); }, 3s));
    CHECK(held.status == 200);
    CHECK(contains(lock_entry(held.body, "report"), "\"held\":true"));
    CHECK(http_get(port, "/metrics").status == 200);
    CHECK(http_get(without_metrics->port(), "/metrics").status == 404);  // null metrics, as documented
    const auto page = http_get(port, "/");
    CHECK(page.status == 200);
    CHECK(contains(page.body, "report"));
    CHECK(contains(page.body, "scheduler running"));

    release = true;
    std::string tasks;
    // The outcome is recorded before the firing counts as over: wait for one answer with both (a
    // slow run, ASan, saw the outcome while running was still true).
    CHECK(wait_for([&] {
        tasks = http_get(port, "/api/tasks").body;
        return contains(tasks, "\"last_outcome\":\"succeeded\"") && contains(tasks, "\"running\":false");
    }, 3s));
    CHECK(contains(tasks, "{\"name\":\"report\""));
    CHECK(contains(tasks, "\"running\":false"));
    const auto runs = http_get(port, "/api/runs?task=report");
    CHECK(runs.status == 200);
    CHECK(contains(runs.body, "\"outcome\":\"succeeded\""));

    s.stop(2s);  // closes both servers
    CHECK(wait_for([&] { return http_get(port, "/healthz").status == 0; }, 2s));
    CHECK(http_get(without_metrics->port(), "/metrics").status == 0);
}

TEST_CASE("asio status server: a hanging backend call leaves the application's executor free", "[asio_status]") {
    harness h;
    std::atomic<bool> inside{false}, release{false};
    freezable_inspection inspection(*h.locks);
    asio::scheduler s(h.io.executor(), h.service, h.runs);
    s.add(held_task(inside, release));
    s.start();
    metrics_registry metrics;
    auto options = local_options();
    options.heartbeat_every = 0ms;  // the frozen provider holds no record
    options.backend_timeout = 300ms;
    const auto server = serve_status(s, inspection, &metrics, options);
    REQUIRE(wait_for([&] { return inside.load(); }, 3s));

    std::atomic<int> ticks{0};
    std::atomic<bool> ticking{true};
    boost::asio::co_spawn(h.io.io(), [&]() -> awaitable<void> {
        while (ticking.load()) {
            co_await wait(20ms);  // a steady_timer of the application
            ++ticks;
        }
    }, boost::asio::detached);

    inspection.set_frozen(true);
    auto stuck = std::async(std::launch::async, [&] { return http_get(server->port(), "/api/locks"); });
    std::this_thread::sleep_for(100ms);  // the server's backend thread is in list_locks now
    const int before = ticks.load();
    CHECK(http_get(server->port(), "/metrics").status == 200);
    std::this_thread::sleep_for(600ms);
    CHECK(ticks.load() > before + 5);  // the timer kept firing while list_locks hung
    CHECK(stuck.get().status == 503);   // the deadline answered for the hung call
    CHECK(http_get(server->port(), "/metrics").status == 200);
    inspection.set_frozen(false);
    CHECK(wait_for([&] { return http_get(server->port(), "/healthz").status == 200; }, 3s));

    ticking = false;
    release = true;
    s.stop(2s);
    CHECK(wait_for([&] { return http_get(server->port(), "/metrics").status == 0; }, 2s));
}
