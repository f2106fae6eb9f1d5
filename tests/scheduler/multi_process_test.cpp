// 3 processes x 3 tasks on one SQLite file, >= 30 firings each: every firing executed exactly
// once in the cluster, every other attempt recorded as skipped_locked. SHEDLOCK_MULTIPROCESS_SECONDS
// shortens the 38 s run (the sanitizer passes of scripts/test.sh run 14 s: >= 10 firings each).
#include "test_env.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <atomic>
#include <map>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

constexpr int processes = 3;
/// 38 s (>= 30 firings of the slowest task), or SHEDLOCK_MULTIPROCESS_SECONDS (5..600).
std::chrono::seconds run_for() {
    static const std::chrono::seconds seconds = [] {
        const char* text = std::getenv("SHEDLOCK_MULTIPROCESS_SECONDS");
        if (!text) return std::chrono::seconds{38};
        const long n = std::strtol(text, nullptr, 10);
        if (n < 5 || n > 600)
            throw std::invalid_argument(std::string("SHEDLOCK_MULTIPROCESS_SECONDS=") + text + ": give 5..600 seconds");
        return std::chrono::seconds{n};
    }();
    return seconds;
}

/// The firings the slowest task (1.2 s) must have had: all but the first and last slots.
std::size_t expected_firings() { return static_cast<std::size_t>(run_for() / 1200ms) - 1; }

struct task_spec {
    const char* name;
    trigger when;
    const char* at_least;  // covers timer skew between processes, shorter than the period
    std::chrono::milliseconds period;
};

const std::array<task_spec, 3>& specs() {
    static const std::array<task_spec, 3> s{{
        // at_least leaves >= 350 ms on both sides: a loser firing up to at_least late is still
        // refused, and a winner up to (period - at_least) late does not block the next slot.
        {"every_second", cron("* * * * * *", "UTC"), "600ms", 1000ms},
        {"every_800ms", aligned_rate(800ms), "450ms", 800ms},
        {"every_1200ms", aligned_rate(1200ms), "700ms", 1200ms},
    }};
    return s;
}

/// Lives in memory shared by the forked processes: proves no two bodies of a task overlapped.
struct shared_state {
    std::array<std::atomic<int>, 3> holders{};
    std::atomic<int> overlaps{0};
};

providers::sqlite_options lock_options(const std::string& path) {
    providers::sqlite_options o;
    o.path = path;
    o.create_schema_if_missing = true;
    return o;
}

providers::sqlite_run_options run_options(const std::string& path) {
    providers::sqlite_run_options o;
    o.path = path;
    o.create_schema_if_missing = true;
    o.retention.max_per_task = 100000;
    return o;
}

int run_instance(const std::string& path, int index, shared_state& shared, timestamp start_at) {
    auto locks = providers::make_sqlite_lock_provider(lock_options(path));
    auto runs = providers::make_sqlite_run_store(run_options(path));
    scheduler_options options;
    options.instance = "instance-" + std::to_string(index);
    scheduler s(*locks, *runs, options);
    for (std::size_t i = 0; i < specs().size(); ++i) {
        s.add(make_task(specs()[i].name, [&shared, i](task_context&) {
            if (shared.holders[i].fetch_add(1) != 0) shared.overlaps.fetch_add(1);
            std::this_thread::sleep_for(20ms);
            shared.holders[i].fetch_sub(1);
        }, specs()[i].when, lock_at_most_for("PT10S"), lock_at_least_for(specs()[i].at_least)));
    }
    std::this_thread::sleep_until(std::chrono::system_clock::time_point{start_at});
    s.start();
    std::this_thread::sleep_until(std::chrono::system_clock::time_point{start_at + run_for()});
    s.stop(5s);
    return 0;
}

}  // namespace

TEST_CASE("multi-process: every firing runs exactly once across 3 processes on SQLite", "[scheduler][multiprocess]") {
    const std::string path = test::scratch_dir() + "/cluster.db";
    (void)providers::make_sqlite_lock_provider(lock_options(path));  // create both tables up front
    (void)providers::make_sqlite_run_store(run_options(path));
    void* memory = ::mmap(nullptr, sizeof(shared_state), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(memory != MAP_FAILED);
    auto* shared = new (memory) shared_state{};
    const auto start_at = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()) + 700ms;
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int code = 3;
            try {
                code = run_instance(path, p, *shared, timestamp{start_at.time_since_epoch()});
            } catch (...) {
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    CHECK(shared->overlaps.load() == 0);

    auto store = providers::make_sqlite_run_store(run_options(path));  // read back without a scheduler
    for (const auto& spec : specs()) {
        INFO("task " << spec.name);
        std::map<timestamp, int> executions, skipped, other;
        std::map<std::string, int> per_instance;
        for (const auto& r : store->last_runs(spec.name, 100000)) {
            if (r.outcome == run_outcome::succeeded) {
                ++executions[r.scheduled_at];
                ++per_instance[r.instance];
            } else if (r.outcome == run_outcome::skipped_locked) {
                ++skipped[r.scheduled_at];
            } else {
                ++other[r.scheduled_at];
            }
        }
        CHECK(executions.size() >= expected_firings());
        CHECK(other.empty());
        for (const auto& [at, n] : executions) CHECK(n == 1);
        for (const auto& [at, n] : skipped) CHECK(executions.count(at) == 1);  // no slot only skipped
        // Inside the window every process saw every slot: one ran it, the two others were locked out.
        const auto first = executions.begin()->first + 1s, last = executions.rbegin()->first - 1s;
        int full_slots = 0;
        for (const auto& [at, n] : executions) {
            if (at < first || at > last) continue;
            CHECK(skipped[at] == processes - 1);
            ++full_slots;
        }
        // No gaps: consecutive executed slots are one period apart.
        for (auto it = executions.begin(); std::next(it) != executions.end(); ++it)
            CHECK(std::next(it)->first - it->first == spec.period);
        INFO("executions per instance: " << per_instance.size());
        CHECK(full_slots >= static_cast<int>(expected_firings()) - 5);  // all but the slots near the ends
    }
    shared->~shared_state();
    ::munmap(memory, sizeof(shared_state));
}
