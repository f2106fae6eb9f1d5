// Scheduler benchmark: lateness (body start minus scheduled time) of firings, and idle CPU.
// Plain main that prints figures; never a timed assertion.
//
//   scheduler_lateness [runs=10] [bursts-per-run=2] [tasks=1000] [only]
//
// `only` keeps the scenarios whose label contains it (e.g. "burst, memory"), for a profiler.
//
// Scenarios, interleaved run by run (memory burst, SQLite burst, memory spread, memory burst...):
// - burst: `tasks` tasks on cron "* * * * * *", all due on the same second. With the memory
//   provider this is the scheduler's own overhead; with SQLite (locks and run records in a file
//   in a temp dir) it adds what a real backend costs per firing.
// - spread: `tasks` tasks at aligned_rate(1s, i ms), each due at its own millisecond.
// Each run is a fresh scheduler (fresh provider, fresh file) that fires 1 + bursts-per-run
// seconds. The first second after start() is a warm-up, shown on its own line; every other
// second is one slice. A line gives the median over the slices of each slice's p50, p99 and max,
// with [smallest-largest] across slices.
#include "bench_stats.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>
#ifdef SHEDLOCK_BENCH_SQLITE
#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#endif

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

struct backend {
    std::unique_ptr<lock_provider> locks;
    std::unique_ptr<run_store> runs;
};

struct scenario {
    scenario(std::string l, std::function<backend(const std::filesystem::path&)> o, bool s = false)
        : label(std::move(l)), open(std::move(o)), spread(s) {}

    std::string label;
    std::function<backend(const std::filesystem::path& dir)> open;
    bool spread = false;
    std::vector<bench::latency_summary> slices;
    std::vector<bench::latency_summary> warm_ups;
    std::size_t incomplete = 0;  // measured slices where not every task started (skipped or lost)
    std::uint64_t missed = 0;
};

backend open_memory(const std::filesystem::path&) {
    return {std::make_unique<providers::memory_lock_provider>(),
            std::make_unique<memory_run_store>(run_retention{16, std::nullopt})};
}

#ifdef SHEDLOCK_BENCH_SQLITE
backend open_sqlite(const std::filesystem::path& dir) {
    providers::sqlite_options locks;
    locks.path = (dir / "locks.db").string();
    locks.create_schema_if_missing = true;
    providers::sqlite_run_options runs;
    runs.path = locks.path;
    runs.create_schema_if_missing = true;
    runs.retention.max_per_task = 16;
    return {providers::make_sqlite_lock_provider(locks), providers::make_sqlite_run_store(runs)};
}
#endif

/// Body-start samples, written lock-free by the workers into preallocated slots.
class sample_sink {
public:
    explicit sample_sink(std::size_t capacity) : slots_(capacity) {}
    void add(timestamp scheduled) {
        const auto late = std::chrono::system_clock::now() - std::chrono::system_clock::time_point{scheduled};
        const auto i = next_.fetch_add(1);
        if (i < slots_.size()) slots_[i] = {scheduled, std::chrono::nanoseconds{late}.count()};
    }
    std::size_t size() const { return std::min(next_.load(), slots_.size()); }
    /// Lateness in ns per scheduled second, oldest second first. Only after the scheduler stopped.
    std::map<timestamp, std::vector<std::int64_t>> by_second() const {
        std::map<timestamp, std::vector<std::int64_t>> out;
        for (std::size_t i = 0; i < size(); ++i)
            out[std::chrono::floor<std::chrono::seconds>(slots_[i].first)].push_back(slots_[i].second);
        return out;
    }

private:
    std::vector<std::pair<timestamp, std::int64_t>> slots_;
    std::atomic<std::size_t> next_{0};
};

void run_once(scenario& sc, int tasks, int bursts) {
    const auto dir = std::filesystem::temp_directory_path() / ("shedlock-lateness-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        auto b = sc.open(dir);
        const int seconds = bursts + 1;
        sample_sink sink(static_cast<std::size_t>(tasks) * (seconds + 2));
        scheduler s(*b.locks, *b.runs);  // default options: 4 workers
        for (int i = 0; i < tasks; ++i) {
            const trigger when =
                sc.spread ? aligned_rate(1s, std::chrono::milliseconds{i}) : cron("* * * * * *", "UTC");
            s.add(make_task("task-" + std::to_string(i), [&sink](task_context& ctx) { sink.add(ctx.scheduled_at()); },
                            when, lock_at_most_for("PT10S")));
        }
        s.start();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{seconds + 5};
        const auto wanted = static_cast<std::size_t>(tasks) * seconds;
        while (sink.size() < wanted && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
        s.stop(10s);
        sc.missed += s.stats().missed;
        int second = 0;
        for (auto& [at, late] : sink.by_second()) {
            if (second >= seconds) break;
            const bool warm_up = second++ == 0;  // spread: tasks whose phase passed before start() wait a second
            if (!warm_up && late.size() < static_cast<std::size_t>(tasks)) ++sc.incomplete;
            (warm_up ? sc.warm_ups : sc.slices).push_back(bench::summarize(late));
        }
    }
    std::filesystem::remove_all(dir);
}

/// "median [min-max]" of one field over the slices, in ms.
std::string spread_of(const std::vector<bench::latency_summary>& v, double bench::latency_summary::*field) {
    if (v.empty()) return "-";
    std::vector<double> ms;
    for (const auto& s : v) ms.push_back(s.*field / 1000.0);
    return bench::format(bench::median_of(std::move(ms)), "%.2f");
}

void print(const std::string& label, const std::vector<bench::latency_summary>& v) {
    using s = bench::latency_summary;
    std::printf("%-44s slices=%-3zu p50 %-22s p99 %-22s max %s ms\n", label.c_str(), v.size(),
                spread_of(v, &s::p50_us).c_str(), spread_of(v, &s::p99_us).c_str(), spread_of(v, &s::max_us).c_str());
}

std::chrono::microseconds cpu_time() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    auto us = [](const timeval& tv) { return std::chrono::seconds{tv.tv_sec} + std::chrono::microseconds{tv.tv_usec}; };
    return std::chrono::duration_cast<std::chrono::microseconds>(us(usage.ru_utime) + us(usage.ru_stime));
}

/// 10,000 tasks that never fire during the measurement: start() time and CPU per idle second.
void measure_idle_cpu(int slices) {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    for (int i = 0; i < 10'000; ++i)
        s.add(make_task("idle-" + std::to_string(i), [](task_context&) {}, cron("0 0 3 1 1 *", "Europe/Berlin"),
                        lock_at_most_for("PT1M")));
    const auto t0 = std::chrono::steady_clock::now();
    s.start();
    const auto started = std::chrono::steady_clock::now() - t0;
    std::vector<double> percent;
    for (int i = 0; i < slices; ++i) {
        const auto cpu0 = cpu_time();
        std::this_thread::sleep_for(1s);
        percent.push_back(100.0 * static_cast<double>((cpu_time() - cpu0).count()) / 1e6);
    }
    s.stop(1s);
    std::sort(percent.begin(), percent.end());
    std::printf("idle, 10000 registered tasks: start() %.1f ms; CPU per second %.4f %% of one core "
                "[%.4f-%.4f] over %d one-second slices\n",
                std::chrono::duration<double, std::milli>(started).count(), percent[percent.size() / 2],
                percent.front(), percent.back(), slices);
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
    const int bursts = argc > 2 ? std::atoi(argv[2]) : 2;
    const int tasks = argc > 3 ? std::atoi(argv[3]) : 1000;
    const std::string only = argc > 4 ? argv[4] : "";
    if (runs < 1 || bursts < 1 || tasks < 1) {
        std::fprintf(stderr, "usage: scheduler_lateness [runs>=1] [bursts-per-run>=1] [tasks>=1]\n");
        return 2;
    }
    std::vector<scenario> scenarios;
    const std::string n = std::to_string(tasks);
    scenarios.emplace_back("burst, memory: " + n + " tasks due on one second", open_memory);
#ifdef SHEDLOCK_BENCH_SQLITE
    scenarios.emplace_back("burst, SQLite: " + n + " tasks due on one second", open_sqlite);
#endif
    scenarios.emplace_back("spread, memory: " + n + " tasks, one per ms", open_memory, true);
    std::erase_if(scenarios, [&only](const scenario& sc) { return sc.label.find(only) == std::string::npos; });
    bench::print_load("at start");
    std::printf("lateness = body start - scheduled time; %d runs x %d slices (+1 warm-up second per run); "
                "median [min-max] over slices, ms\n", runs, bursts);
    for (int r = 0; r < runs; ++r)
        for (auto& sc : scenarios) run_once(sc, tasks, bursts);
    for (const auto& sc : scenarios) {
        print(sc.label, sc.slices);
        print("  (warm-up: the first second after start)", sc.warm_ups);
        if (sc.incomplete || sc.missed)
            std::printf("  %zu second(s) where not every task started; %llu firing(s) missed\n", sc.incomplete,
                        static_cast<unsigned long long>(sc.missed));
    }
    if (only.empty()) measure_idle_cpu(10);
    bench::print_load("at end");
    return 0;
}
