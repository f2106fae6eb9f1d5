// The scheduler demo: 3 instance processes share one SQLite file and run the same three tasks;
// the lock lets each firing run once in the cluster. At the end the run records are read back
// (no scheduler needed) and checked: the program exits non-zero if any firing ran twice.
//
//   scheduler_demo [--seconds N] [--db PATH] [--without-keep-alive]
//       coordinator: starts 3 instances, reports. --without-keep-alive shows what the watchdog
//       prevents: rebuild_index outlives its lease and another instance runs it concurrently.
//   scheduler_demo --instance K --db PATH --start-ms T --seconds N   one instance (started by the coordinator)
#include "demo_report.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#include <shedlock/scheduler.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

constexpr int instances = 3;
const std::vector<std::string> task_names{"heartbeat", "cleanup", "rebuild_index"};

struct arguments {
    int instance = -1;
    int seconds = 16;
    std::string db;
    long long start_ms = 0;
    bool keep_alive = true;
};

arguments parse(int argc, char** argv) {
    arguments a;
    for (int i = 1; i < argc; i += 2) {
        const std::string key = argv[i];
        if (key == "--without-keep-alive") {
            a.keep_alive = false;
            --i;
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument(key + " needs a value");
        const std::string value = argv[i + 1];
        if (key == "--instance") a.instance = std::stoi(value);
        else if (key == "--seconds") a.seconds = std::stoi(value);
        else if (key == "--db") a.db = value;
        else if (key == "--start-ms") a.start_ms = std::stoll(value);
        else throw std::invalid_argument("unknown option " + key + " (use --seconds N, --db PATH)");
    }
    return a;
}

/// The three tasks every instance declares.
void add_tasks(scheduler& s, bool with_keep_alive) {
    // Every second, on the wall-clock second, in every instance; lock_at_least_for covers the
    // few milliseconds of timer skew between processes.
    s.add(make_task("heartbeat", [](task_context& ctx) { ctx.count("beats"); }, cron("* * * * * *", "UTC"),
                    lock_at_most_for("PT10S"), lock_at_least_for("500ms")));
    // 2 s after this instance's previous run finished.
    s.add(make_task("cleanup", [](task_context& ctx) {
        std::this_thread::sleep_for(100ms);
        ctx.count("removed", 3);
    }, fixed_delay(2s, 200ms), lock_at_most_for("PT10S"), lock_at_least_for("1500ms")));
    // Runs 5 s with a 2 s lease: only the keep-alive (extend every 1 s) keeps the others out.
    s.add(make_task("rebuild_index", [](task_context& ctx) {
        for (int page = 0; page < 50 && !ctx.cancellation_requested(); ++page) {
            std::this_thread::sleep_for(100ms);
            ctx.count("pages");
        }
    }, aligned_rate(2s), lock_at_most_for("PT2S"), keep_alive(with_keep_alive)));
}

int run_instance(const arguments& a) {
    providers::sqlite_options lock_options;
    lock_options.path = a.db;
    providers::sqlite_run_options run_options;
    run_options.path = a.db;
    auto locks = providers::make_sqlite_lock_provider(lock_options);
    auto runs = providers::make_sqlite_run_store(run_options);
    scheduler_options options;
    options.instance = "instance-" + std::to_string(a.instance);
    scheduler s(*locks, *runs, options);
    add_tasks(s, a.keep_alive);
    const std::chrono::system_clock::time_point start{std::chrono::milliseconds{a.start_ms}};
    std::this_thread::sleep_until(start);
    s.start();
    std::this_thread::sleep_until(start + std::chrono::seconds{a.seconds});
    s.stop(10s);
    return 0;
}

pid_t spawn_instance(const arguments& a, int k) {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe");
    std::vector<std::string> args{self, "--instance", std::to_string(k), "--db", a.db,
                                  "--start-ms", std::to_string(a.start_ms), "--seconds", std::to_string(a.seconds)};
    if (!a.keep_alive) args.emplace_back("--without-keep-alive");
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    std::vector<char*> argv;
    for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    ::execv(self.c_str(), argv.data());
    std::perror("execv");
    ::_exit(127);
}

int coordinate(arguments a) {
    std::filesystem::path scratch;  // removed at the end when we made it; pass --db to keep the file
    if (a.db.empty()) {
        scratch = std::filesystem::temp_directory_path() / ("shedlock-demo-" + std::to_string(::getpid()));
        std::filesystem::create_directories(scratch);
        a.db = (scratch / "demo.db").string();
    }
    providers::sqlite_options lock_options;  // create both tables once, before the instances start
    lock_options.path = a.db;
    lock_options.create_schema_if_missing = true;
    (void)providers::make_sqlite_lock_provider(lock_options);
    providers::sqlite_run_options run_options;
    run_options.path = a.db;
    run_options.create_schema_if_missing = true;
    run_options.retention.max_per_task = 100'000;
    (void)providers::make_sqlite_run_store(run_options);

    a.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     (std::chrono::system_clock::now() + 1s).time_since_epoch()).count();
    std::printf("shedlock scheduler demo: %d instance processes on %s for %d s\n", instances, a.db.c_str(), a.seconds);
    std::printf("tasks: heartbeat cron(* * * * * *), cleanup fixed_delay(2s), rebuild_index 5 s runs every 2 s "
                "with a 2 s lease %s\n", a.keep_alive ? "+ keep-alive" : "and NO keep-alive");
    std::fflush(stdout);
    bool children_ok = true;
    std::vector<pid_t> pids;
    for (int k = 0; k < instances; ++k) pids.push_back(spawn_instance(a, k));
    for (pid_t pid : pids) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        children_ok = children_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    auto store = providers::make_sqlite_run_store(run_options);  // read back without a scheduler
    const int duplicates = demo::print_report(*store, task_names);
    store.reset();
    if (!scratch.empty()) std::filesystem::remove_all(scratch);
    std::printf("\nduplicates: %d (must be 0)%s\n", duplicates, children_ok ? "" : "; an instance process failed");
    return duplicates == 0 && children_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const auto a = parse(argc, argv);
        return a.instance >= 0 ? run_instance(a) : coordinate(a);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "scheduler_demo: %s\n", e.what());
        return 2;
    }
}
