#include "unavailable_provider.hpp"
#include "../../core/src/metric_thread_cells.hpp"  // the executor's per-thread cells (core-private)

#include <shedlock/error.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/utf8.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

using namespace shedlock;
using std::chrono::milliseconds;

namespace {

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

}  // namespace

TEST_CASE("metrics text: counters, gauges, HELP and TYPE in the 0.0.4 format", "[metrics]") {
    metrics_registry m;
    m.counter("shedlock_x_total", "Things counted", {{"task", "a"}}).inc(3);
    m.counter("shedlock_x_total", "Things counted", {{"task", "b"}}).inc();
    m.gauge("shedlock_g", "A gauge").set(1.5);
    const auto text = m.metrics_text();
    CHECK(has_line(text, "# HELP shedlock_x_total Things counted"));
    CHECK(has_line(text, "# TYPE shedlock_x_total counter"));
    CHECK(has_line(text, "shedlock_x_total{task=\"a\"} 3"));
    CHECK(has_line(text, "shedlock_x_total{task=\"b\"} 1"));
    CHECK(has_line(text, "# TYPE shedlock_g gauge"));
    CHECK(has_line(text, "shedlock_g 1.5"));
    // Families sorted by name, each HELP/TYPE once.
    CHECK(text.find("shedlock_g") < text.find("shedlock_x_total"));
    CHECK(text.find("# TYPE shedlock_x_total") == text.rfind("# TYPE shedlock_x_total"));
}

TEST_CASE("metrics text: label values and help texts are escaped", "[metrics]") {
    metrics_registry m;
    m.counter("c_total", "help with \\ and\nnewline", {{"lock", "a\"b\\c\nd"}}).inc();
    const auto text = m.metrics_text();
    CHECK(has_line(text, "# HELP c_total help with \\\\ and\\nnewline"));
    CHECK(has_line(text, "c_total{lock=\"a\\\"b\\\\c\\nd\"} 1"));
    CHECK(escape_label_value("plain é") == "plain é");
}

TEST_CASE("metrics text: bytes that are not UTF-8 become visible xNN text in label values and help", "[metrics]") {
    // The text format is UTF-8: one invalid byte and Prometheus rejects the whole scrape.
    metrics_registry m;
    m.counter("c_total", "help \xff", {{"task", "name-\xe9-latin1"}}).inc();
    const auto text = m.metrics_text();
    CHECK(has_line(text, "# HELP c_total help \\\\xff"));
    CHECK(has_line(text, "c_total{task=\"name-\\\\xe9-latin1\"} 1"));
    for (std::size_t pos = 0; pos < text.size();) {
        const auto decoded = decode_utf8_at(text, pos);
        INFO("byte " << pos);
        REQUIRE(decoded);
        pos += decoded->length;
    }
}

TEST_CASE("metrics text: histograms have cumulative buckets, +Inf, _sum and _count", "[metrics]") {
    metrics_registry m;
    auto& h = m.histogram("d_seconds", "Durations", {{"task", "t"}}, {0.1, 1});
    h.observe(0.05);
    h.observe(0.1);  // le is inclusive
    h.observe(0.5);
    h.observe(7);
    const auto text = m.metrics_text();
    CHECK(has_line(text, "# TYPE d_seconds histogram"));
    CHECK(has_line(text, "d_seconds_bucket{task=\"t\",le=\"0.1\"} 2"));
    CHECK(has_line(text, "d_seconds_bucket{task=\"t\",le=\"1\"} 3"));
    CHECK(has_line(text, "d_seconds_bucket{task=\"t\",le=\"+Inf\"} 4"));
    CHECK(has_line(text, "d_seconds_sum{task=\"t\"} 7.65"));
    CHECK(has_line(text, "d_seconds_count{task=\"t\"} 4"));
}

TEST_CASE("metrics registry rejects bad names, a type clash and unsorted buckets", "[metrics]") {
    metrics_registry m;
    CHECK_THROWS_AS(m.counter("1bad", "x"), configuration_error);
    CHECK_THROWS_AS(m.counter("ok_total", "x", {{"bad-label", "v"}}), configuration_error);
    CHECK_THROWS_AS(m.counter("ok2_total", "x", {{"le", "v"}}), configuration_error);
    m.counter("same", "x");
    CHECK_THROWS_WITH(m.gauge("same", "x"), Catch::Contains("is a counter, not a gauge"));
    CHECK_THROWS_AS(m.histogram("h", "x", {}, {1, 0.5}), configuration_error);
    // The same name and labels are the same series.
    CHECK(&m.counter("same", "x") == &m.counter("same", "x"));
}

TEST_CASE("metrics registry: concurrent increments are all counted", "[metrics]") {
    metrics_registry m;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&m, t] {
            for (int i = 0; i < 1000; ++i) {
                m.counter("n_total", "n", {{"k", std::to_string(i % 3)}}).inc();
                m.histogram("h_seconds", "h").observe(0.002);
                if (t == 0 && i % 100 == 0) (void)m.metrics_text();
            }
        });
    for (auto& t : threads) t.join();
    const auto text = m.metrics_text();
    CHECK(has_line(text, "h_seconds_count 4000"));
    CHECK(m.counter("n_total", "n", {{"k", "0"}}).value() == 4 * 334);
}

TEST_CASE("executor metrics: attempts by outcome, acquire histogram, held gauge", "[metrics][executor]") {
    metrics_registry m;
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider, m, "memory");
    double held_while_running = -1;
    auto r = executor.execute([&](task_context&) {
        held_while_running = m.gauge("shedlock_lock_held", "", {{"lock", "job"}}).value();
    }, {"job", milliseconds{1000}});
    REQUIRE(r.outcome == run_outcome::succeeded);
    CHECK(held_while_running == 1);
    auto other = provider.try_lock({"job", milliseconds{1000}});
    REQUIRE(other);
    CHECK(executor.execute([](task_context&) {}, {"job", milliseconds{1000}}).outcome == run_outcome::skipped_locked);
    const auto text = m.metrics_text();
    CHECK(has_line(text, "shedlock_lock_attempts_total{lock=\"job\",outcome=\"acquired\"} 1"));
    CHECK(has_line(text, "shedlock_lock_attempts_total{lock=\"job\",outcome=\"held\"} 1"));
    CHECK(has_line(text, "shedlock_lock_attempts_total{lock=\"job\",outcome=\"error\"} 0"));
    CHECK(has_line(text, "shedlock_lock_held{lock=\"job\"} 0"));
    CHECK(has_line(text, "shedlock_lock_acquire_seconds_count{provider=\"memory\"} 2"));
}

TEST_CASE("executor metrics: backend errors and keep-alive extensions are counted", "[metrics][executor]") {
    metrics_registry m;
    test::unavailable_provider failing;
    locking_task_executor broken(failing, m, "broken");
    CHECK(broken.execute([](task_context&) {}, {"j", milliseconds{1000}}).outcome == run_outcome::lock_error);
    CHECK(m.counter("shedlock_lock_attempts_total", "", {{"lock", "j"}, {"outcome", "error"}}).value() == 1);

    providers::memory_lock_provider provider;
    locking_task_executor executor(provider, m, "memory");
    execute_options keep;
    keep.keep_alive = true;
    executor.execute([](task_context&) { std::this_thread::sleep_for(milliseconds{140}); },
                     {"long", milliseconds{100}}, keep);
    CHECK(m.counter("shedlock_keepalive_extensions_total", "").value() >= 1);
    CHECK(m.counter("shedlock_lock_lost_total", "").value() == 0);
}

TEST_CASE("metric counter cells: each thread's count survives its exit, and later threads reuse the cells",
          "[metrics]") {
    metrics_registry m;
    auto& counter = m.counter("cells_total", "per-thread cells");
    for (int round = 0; round < 3; ++round) {  // threads of later rounds take over the indices of earlier ones
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&counter] {
                auto& mine = detail::metric_access::this_thread_cell(counter);
                CHECK(&mine == &detail::metric_access::this_thread_cell(counter));
                for (int i = 0; i < 1000; ++i) mine.inc();
                counter.inc(5);  // the shared path adds to the same total
            });
        for (auto& t : threads) t.join();
    }
    CHECK(counter.value() == 3 * 4 * (1000 + 5));
    CHECK(has_line(m.metrics_text(), "cells_total 12060"));
}

TEST_CASE("executor metrics: threads running nested locks leave exact attempts and lock_held at 0", "[metrics][executor]") {
    metrics_registry m;
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider, m, "memory");
    std::atomic<bool> done{false};
    double lowest_held = 0, highest_held = 0;
    std::thread scraper([&] {  // lock_held read while threads acquire and release: 0 or 1 (one holder)
        while (!done.load())
            for (const char* lock : {"outer-0", "outer-1", "inner"}) {
                const double held = m.gauge("shedlock_lock_held", "", {{"lock", lock}}).value();
                lowest_held = std::min(lowest_held, held);
                highest_held = std::max(highest_held, held);  // an unsigned wrap below 0 reads huge
            }
    });
    std::atomic<int> acquired{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 300; ++i) {
                // A nested run of another lock replaces this thread's cached lock: the outer
                // release must still count against the outer lock.
                const auto r = executor.execute([&](task_context&) {
                    if (executor.execute([](task_context&) {}, {"inner", milliseconds{1000}}).outcome ==
                        run_outcome::succeeded)
                        acquired.fetch_add(1);
                }, {"outer-" + std::to_string((t + i) % 2), milliseconds{1000}});
                if (r.outcome == run_outcome::succeeded) acquired.fetch_add(1);
            }
        });
    for (auto& t : threads) t.join();
    done = true;
    scraper.join();
    CHECK(lowest_held == 0);
    CHECK(highest_held <= 1);
    std::uint64_t total_acquired = 0;
    for (const char* lock : {"outer-0", "outer-1", "inner"}) {
        CHECK(m.gauge("shedlock_lock_held", "", {{"lock", lock}}).value() == 0);
        total_acquired += m.counter("shedlock_lock_attempts_total", "", {{"lock", lock}, {"outcome", "acquired"}}).value();
    }
    CHECK(total_acquired == static_cast<std::uint64_t>(acquired.load()));
}
