// metrics_overhead: what the metrics cost.
// 1. The executor's lock cycle (try_lock, empty body, unlock) on the memory provider with metrics
//    off and on, in the same run: interleaved slices (the order alternates), per-slice medians,
//    and the on/off ratio of each pair of neighbouring slices, so machine load drifts cancel; wall
//    time and this thread's CPU time (on a loaded machine the CPU time leaves out the other
//    processes' turns, which land in one side's slice or the other's at random).
//    With SQLite built, the same on the SQLite provider (a cycle a real deployment pays).
// 2. A scrape with 10,000 tasks: a running scheduler with 10,000 (yearly) tasks whose locks have
//    all been taken once, so every series the scheduler and executor create exists; the time of
//    metrics_text() and of GET /metrics on the status server over loopback (wall, and the CPU time
//    of the process: server and client, which a loaded machine does not inflate).
// Never a timed assertion: a program that prints figures. Run it on an idle machine.
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#ifdef SHEDLOCK_BENCH_SQLITE
#include <shedlock/providers/sqlite_lock_provider.hpp>
#endif
#include <shedlock/scheduler.hpp>
#include <shedlock/status_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace shedlock;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void print_stat(const char* what, const std::vector<double>& v, const char* unit) {
    std::printf("  %-28s median %8.3f %s  (min %.3f, max %.3f, n=%zu)\n", what, median(v), unit,
                *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), v.size());
}

double thread_cpu_ns() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

/// ns per execute() over `cycles` cycles, wall and this thread's CPU time (the CPU time leaves out
/// the time other processes of a loaded machine ran instead of this one).
struct slice_cost {
    double wall_ns;
    double cpu_ns;
};
slice_cost slice_ns(locking_task_executor& executor, const lock_configuration& config, int cycles) {
    const double cpu_start = thread_cpu_ns();
    const auto start = clock_type::now();
    for (int i = 0; i < cycles; ++i) (void)executor.execute([](task_context&) {}, config);
    const double wall = std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
    return {wall / cycles, (thread_cpu_ns() - cpu_start) / cycles};
}

void executor_cycles(lock_provider& provider, const char* name, int slices, int cycles) {
    metrics_registry metrics;
    locking_task_executor plain(provider);
    locking_task_executor measured(provider, metrics, name);
    const lock_configuration config{"bench-cycle", std::chrono::seconds{60}};
    slice_ns(plain, config, cycles);  // warm-up of both paths
    slice_ns(measured, config, cycles);
    std::vector<double> off, on, ratio, off_cpu, on_cpu, ratio_cpu;
    for (int s = 0; s < slices; ++s) {
        slice_cost a{}, b{};
        if (s % 2 == 0) {
            a = slice_ns(plain, config, cycles);
            b = slice_ns(measured, config, cycles);
        } else {
            b = slice_ns(measured, config, cycles);
            a = slice_ns(plain, config, cycles);
        }
        off.push_back(a.wall_ns);
        on.push_back(b.wall_ns);
        ratio.push_back(b.wall_ns / a.wall_ns);
        off_cpu.push_back(a.cpu_ns);
        on_cpu.push_back(b.cpu_ns);
        ratio_cpu.push_back(b.cpu_ns / a.cpu_ns);
    }
    std::printf("executor cycle on the %s provider (%d interleaved slices of %d cycles)\n", name, slices, cycles);
    print_stat("metrics off, wall", off, "ns/cycle");
    print_stat("metrics on, wall", on, "ns/cycle");
    print_stat("on/off wall (paired slices)", ratio, "x");
    print_stat("metrics off, thread CPU", off_cpu, "ns/cycle");
    print_stat("metrics on, thread CPU", on_cpu, "ns/cycle");
    print_stat("on/off CPU (paired slices)", ratio_cpu, "x");
    std::printf("  median on / median off: wall %.4f, CPU %.4f (target <= 1.02)\n", median(on) / median(off),
                median(on_cpu) / median(off_cpu));
}

/// GET `target` with Connection: close and count what the server sends (no parsing, no storing:
/// the figure is the server's, not a client's).
std::size_t http_get_size(std::uint16_t port, const std::string& target) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(request));
    static char buffer[1 << 16];
    std::size_t total = 0;
    boost::system::error_code ec;
    while (!ec) total += socket.read_some(boost::asio::buffer(buffer), ec);  // until the server closes
    return total;
}

double thread_cpu_ms() { return thread_cpu_ns() / 1e6; }

/// CPU time of the whole process (server and client threads of a GET, and the idle scheduler).
double process_cpu_ms() {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

void scrape(int tasks, int repeats) {
    providers::memory_lock_provider locks;
    memory_run_store runs;
    metrics_registry metrics;
    scheduler_options options;
    options.metrics = &metrics;
    options.provider_name = "memory";
    scheduler s(locks, runs, options);
    for (int i = 0; i < tasks; ++i)
        s.add(make_task("task_" + std::to_string(i), [](task_context&) {}, cron("0 0 3 1 1 ?"), lock_at_most_for("PT1M")));
    s.start();
    for (int i = 0; i < tasks; ++i) (void)s.run_now("task_" + std::to_string(i));  // every series exists
    status_server_options where;
    where.port = 0;
    auto server = serve_status(s, &metrics, where);
    std::vector<double> render_ms, render_cpu_ms, http_ms, http_cpu_ms;
    std::size_t bytes = 0, lines = 0;
    std::string text;  // reused, as the status server reuses its buffers
    for (int r = 0; r < repeats; ++r) {
        auto start = clock_type::now();
        const double cpu_start = thread_cpu_ms();
        metrics.metrics_text(text);
        render_cpu_ms.push_back(thread_cpu_ms() - cpu_start);
        render_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
        bytes = text.size();
        lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        start = clock_type::now();
        const double process_start = process_cpu_ms();
        (void)http_get_size(server->port(), "/metrics");
        http_cpu_ms.push_back(process_cpu_ms() - process_start);
        http_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
    }
    std::printf("scrape with %d tasks: %zu lines, %.1f MB\n", tasks, lines, static_cast<double>(bytes) / 1e6);
    print_stat("metrics_text(buffer) wall", render_ms, "ms");
    print_stat("metrics_text(buffer) CPU", render_cpu_ms, "ms");
    print_stat("GET /metrics (loopback)", http_ms, "ms");
    print_stat("GET /metrics, process CPU", http_cpu_ms, "ms");
    std::printf("  target: < 50 ms\n");
    server.reset();
    s.stop(std::chrono::seconds{5});
}

}  // namespace

int main(int argc, char** argv) {
    const int slices = argc > 1 ? std::stoi(argv[1]) : 41;
    const int cycles = argc > 2 ? std::stoi(argv[2]) : 20000;
    const int tasks = argc > 3 ? std::stoi(argv[3]) : 10000;
    providers::memory_lock_provider memory;
    executor_cycles(memory, "memory", slices, cycles);
#ifdef SHEDLOCK_BENCH_SQLITE
    {
        // A scratch file of this run, removed after: the bench leaves nothing in the working directory.
        const auto path = std::filesystem::temp_directory_path() /
                          ("shedlock_metrics_overhead_" + std::to_string(::getpid()) + ".db");
        providers::sqlite_options o;
        o.path = path.string();
        o.create_schema_if_missing = true;
        {
            auto sqlite = providers::make_sqlite_lock_provider(o);
            executor_cycles(*sqlite, "sqlite", 11, std::max(cycles / 50, 100));
        }
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path.string() + suffix);
    }
#endif
    scrape(tasks, 15);
    return 0;
}
