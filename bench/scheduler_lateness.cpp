// Scheduler benchmark: lateness of firings (body start minus scheduled time) with 1,000 tasks,
// and idle CPU with 10,000 registered tasks. Plain main; prints one line per measurement.
//
//   scheduler_lateness [seconds-per-phase]   (default 5)
#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

class lateness_samples {
public:
    void add(std::chrono::microseconds late) {
        std::lock_guard lock(mutex_);
        samples_.push_back(late);
    }
    void print(const char* label) {
        std::lock_guard lock(mutex_);
        std::sort(samples_.begin(), samples_.end());
        auto pct = [&](double p) {
            return samples_.empty() ? 0.0 : samples_[static_cast<std::size_t>(p * (samples_.size() - 1))].count() / 1000.0;
        };
        std::printf("%-46s firings=%zu  p50=%.2f ms  p99=%.2f ms  max=%.2f ms\n", label, samples_.size(), pct(0.5),
                    pct(0.99), pct(1.0));
    }

private:
    std::mutex mutex_;
    std::vector<std::chrono::microseconds> samples_;
};

std::chrono::microseconds cpu_time() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    auto us = [](const timeval& tv) { return std::chrono::seconds{tv.tv_sec} + std::chrono::microseconds{tv.tv_usec}; };
    return std::chrono::duration_cast<std::chrono::microseconds>(us(usage.ru_utime) + us(usage.ru_stime));
}

/// 1,000 tasks; `spread` gives each its own phase inside the second, otherwise all fire together.
void measure_lateness(bool spread, std::chrono::seconds duration) {
    providers::memory_lock_provider locks;
    memory_run_store store(run_retention{16, std::nullopt});
    scheduler_options options;
    options.worker_threads = 4;
    scheduler s(locks, store, options);
    lateness_samples samples;
    for (int i = 0; i < 1000; ++i) {
        const trigger when = spread ? aligned_rate(1s, std::chrono::milliseconds{i}) : cron("* * * * * *", "UTC");
        s.add(make_task("task-" + std::to_string(i), [&samples](task_context& ctx) {
            const auto now = std::chrono::system_clock::now();
            samples.add(std::chrono::duration_cast<std::chrono::microseconds>(
                now - std::chrono::system_clock::time_point{ctx.scheduled_at()}));
        }, when, lock_at_most_for("PT10S")));
    }
    s.start();
    std::this_thread::sleep_for(duration);
    s.stop(5s);
    samples.print(spread ? "lateness, 1000 tasks spread over each second" : "lateness, 1000 tasks on one cron second");
}

void measure_idle_cpu(std::chrono::seconds duration) {
    providers::memory_lock_provider locks;
    memory_run_store store;
    scheduler s(locks, store);
    for (int i = 0; i < 10'000; ++i)
        s.add(make_task("idle-" + std::to_string(i), [](task_context&) {}, cron("0 0 3 1 1 *", "Europe/Berlin"),
                        lock_at_most_for("PT1M")));
    const auto t0 = std::chrono::steady_clock::now();
    s.start();
    const auto started = std::chrono::steady_clock::now() - t0;
    const auto cpu0 = cpu_time();
    std::this_thread::sleep_for(duration);
    const auto cpu = cpu_time() - cpu0;
    s.stop(1s);
    std::printf("idle, 10000 registered tasks: start() %.1f ms, CPU %.3f ms over %lld s (%.4f %% of one core)\n",
                std::chrono::duration<double, std::milli>(started).count(), cpu.count() / 1000.0,
                static_cast<long long>(duration.count()),
                100.0 * static_cast<double>(cpu.count()) / std::chrono::duration_cast<std::chrono::microseconds>(duration).count());
}

}  // namespace

int main(int argc, char** argv) {
    const std::chrono::seconds phase{argc > 1 ? std::atoi(argv[1]) : 5};
    measure_lateness(false, phase);
    measure_lateness(true, phase);
    measure_idle_cpu(phase);
    return 0;
}
