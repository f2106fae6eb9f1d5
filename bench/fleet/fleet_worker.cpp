#include "fleet_worker.hpp"

#include "fleet_deciders.hpp"
#include "fleet_options.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

namespace shedlock::bench::fleet {

namespace {

struct decision {
    int task = 0;
    bool acquired = false;
    std::int64_t latency_ns = 0;
    std::string error;
};

/// One firing's shared state: the due instant and the next task to decide.
struct firing_state {
    std::string name_set;
    wall_time due;
    std::atomic<int> next_task{0};
};

void warm_up(decider& d) {
    try {
        for (int i = 0; i < 20; ++i)
            if (d.try_acquire(warm_up_name)) d.release();
    } catch (const std::exception& e) {  // the coordinator sees this instance's output end
        std::fprintf(stderr, "fleet worker: warm-up failed: %s\n", e.what());
        std::_Exit(70);
    }
}

/// One worker thread's share of a firing: wait for the due instant, decide tasks until none is left.
std::vector<decision> decide_tasks(const worker_plan& plan, decider& d, firing_state& state) {
    std::this_thread::sleep_until(state.due);  // the firing's timer: every instance's tasks are due now
    std::vector<decision> made;
    for (int task = state.next_task++; task < plan.tasks; task = state.next_task++) {
        decision one;
        one.task = task;
        try {
            one.acquired = d.try_acquire(state.name_set + "-" + std::to_string(task));
            one.latency_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now() - state.due).count();
            if (one.acquired) {
                std::this_thread::sleep_for(std::chrono::milliseconds{plan.body_ms});  // the task's body
                d.release();
            }
        } catch (const std::exception& e) {
            one.error = e.what();
        }
        made.push_back(std::move(one));
    }
    return made;
}

void print_decisions(const std::vector<decision>& made) {
    for (const auto& d : made) {
        if (!d.error.empty()) {
            std::string text = d.error;
            for (char& c : text) c = c == '\n' ? ' ' : c;
            std::printf("e %d %s\n", d.task, text.c_str());
        } else {
            std::printf("d %d %d %lld\n", d.task, d.acquired ? 1 : 0, static_cast<long long>(d.latency_ns));
        }
    }
}

/// Runs one firing on every decider's thread and prints its decisions.
void fire(const worker_plan& plan, std::vector<std::unique_ptr<decider>>& deciders, const std::string& name_set,
          long long due_ns) {
    firing_state state;
    state.name_set = name_set;
    state.due = wall_time(std::chrono::duration_cast<wall_time::duration>(std::chrono::nanoseconds{due_ns}));
    std::vector<std::future<std::vector<decision>>> threads;
    for (auto& d : deciders)
        threads.push_back(std::async(std::launch::async, [&plan, &d, &state] { return decide_tasks(plan, *d, state); }));
    for (auto& t : threads) print_decisions(t.get());
    std::printf("done\n");
    std::fflush(stdout);
}

std::string read_command() {
    char buffer[256];
    if (std::fgets(buffer, sizeof buffer, stdin) == nullptr) return {};
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
}

}  // namespace

const char* backend_uri_variable(const std::string& backend) {
    if (backend == "pgbouncer") return "SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI";
    if (backend == "redis") return "SHEDLOCK_TEST_REDIS_URI";
    return "SHEDLOCK_TEST_POSTGRES_URI";
}

std::vector<std::string> worker_plan::to_args() const {
    return {"--worker", backend, side, std::to_string(tasks), std::to_string(threads),
            std::to_string(hold_ms), std::to_string(body_ms), redis_prefix};
}

worker_plan worker_plan::from_args(int argc, char** argv) {
    if (argc != 9) throw usage_error("--worker takes 7 arguments (the coordinator passes them)");
    worker_plan plan;
    plan.backend = argv[2], plan.side = argv[3];
    plan.tasks = parse_bounded("tasks", argv[4], 1, 100000);
    plan.threads = parse_bounded("threads", argv[5], 1, 16);
    plan.hold_ms = parse_bounded("hold_ms", argv[6], 1000, 600000);
    plan.body_ms = parse_bounded("body_ms", argv[7], 0, 1000);
    plan.redis_prefix = argv[8];
    return plan;
}

int run_worker(const worker_plan& plan) {
    const char* uri = std::getenv(backend_uri_variable(plan.backend));
    if (uri == nullptr) throw usage_error(std::string("set ") + backend_uri_variable(plan.backend));
    decider_setup setup{plan.backend, uri, plan.redis_prefix, plan.threads, std::chrono::milliseconds{plan.hold_ms}};
    const decider_factory make = plan.side == "raw" ? raw_deciders(setup) : provider_deciders(setup);
    std::vector<std::unique_ptr<decider>> deciders;
    for (int i = 0; i < plan.threads; ++i) deciders.push_back(make());
    {
        std::vector<std::future<void>> warming;  // all at once, so a provider's pool opens every connection
        for (auto& d : deciders) warming.push_back(std::async(std::launch::async, [&d] { warm_up(*d); }));
    }
    std::printf("ready\n");
    std::fflush(stdout);
    for (std::string line = read_command(); line != "quit"; line = read_command()) {
        char name_set[128];
        long long due_ns = 0;
        if (std::sscanf(line.c_str(), "fire %127s %lld", name_set, &due_ns) != 2)
            throw std::runtime_error("worker: expected \"fire <set> <due ns>\" or \"quit\", got \"" + line + "\"");
        fire(plan, deciders, name_set, due_ns);
    }
    return 0;
}

}  // namespace shedlock::bench::fleet
