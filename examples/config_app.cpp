// "Select the backend by config": the same binary runs its tasks on SQLite, PostgreSQL,
// MySQL/MariaDB or Redis, whichever the config file's provider URI names.
//
//   config_app CONFIG [SECONDS]
//
// The tasks are declared in code; the file may override their schedule and lock policy.
#include <shedlock/all_providers.hpp>
#include <shedlock/config_app.hpp>
#include <shedlock/trigger.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

using namespace std::chrono_literals;

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: config_app CONFIG [SECONDS]\n");
        return 64;
    }
    shedlock::register_all_providers();
    std::atomic<int> beats{0};
    shedlock::task_registry tasks;
    tasks.add("heartbeat", [&](shedlock::task_context& ctx) {
        ++beats;
        std::printf("heartbeat under lock %s, token %lld\n", ctx.lock_name().c_str(),
                    static_cast<long long>(ctx.fencing_token().value_or(0)));
        std::fflush(stdout);
    }, shedlock::fixed_rate(1s), shedlock::lock_at_most_for("PT10S"));

    auto app = shedlock::open_from_config(argv[1], tasks);  // backend, run store, scheduler
    app.scheduler->start();
    std::this_thread::sleep_for(std::chrono::seconds{argc > 2 ? std::stoi(argv[2]) : 3});
    app.scheduler->stop(5s);
    std::printf("backend %s: %d heartbeat(s), %zu run record(s)\n", app.config.provider.substr(0, app.config.provider.find(':')).c_str(),
                beats.load(), app.runs->last_runs("heartbeat", 100).size());
    return beats.load() > 0 ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "config_app: %s\n", e.what());
    return 78;
}
