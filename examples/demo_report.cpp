#include "demo_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace demo {
namespace {

using shedlock::run_outcome;
using shedlock::run_record;

struct task_summary {
    std::size_t firings = 0, executions = 0, skipped_locked = 0, skipped_running = 0, failed = 0, lock_lost = 0;
    std::set<shedlock::timestamp> slots;
    std::map<std::string, int> per_instance;
    int duplicates = 0;
};

int count_duplicates(std::vector<run_record> executed) {
    int duplicates = 0;
    std::map<shedlock::timestamp, int> per_slot;
    for (const auto& r : executed)
        if (++per_slot[r.scheduled_at] > 1) ++duplicates;
    std::sort(executed.begin(), executed.end(),
              [](const run_record& a, const run_record& b) { return a.started_at < b.started_at; });
    for (std::size_t i = 1; i < executed.size(); ++i)
        if (executed[i].started_at < executed[i - 1].finished_at) ++duplicates;
    return duplicates;
}

task_summary summarize(const std::vector<run_record>& records) {
    task_summary s;
    std::vector<run_record> executed;
    for (const auto& r : records) {
        ++s.firings;
        s.slots.insert(r.scheduled_at);
        s.lock_lost += r.lock_lost;
        switch (r.outcome) {
            case run_outcome::succeeded:
            case run_outcome::failed:
                ++s.executions;
                ++s.per_instance[r.instance];
                s.failed += r.outcome == run_outcome::failed;
                executed.push_back(r);
                break;
            case run_outcome::skipped_locked: ++s.skipped_locked; break;
            case run_outcome::skipped_running: ++s.skipped_running; break;
            case run_outcome::lock_error: ++s.failed; break;
            case run_outcome::skipped_done: ++s.skipped_locked; break;  // no idempotency keys in this demo
        }
    }
    s.duplicates = count_duplicates(std::move(executed));
    return s;
}

}  // namespace

int print_report(shedlock::run_store& store, const std::vector<std::string>& tasks) {
    std::printf("\n%-15s %8s %6s %11s %15s %16s %7s %10s\n", "task", "firings", "slots", "executions",
                "skipped_locked", "skipped_running", "failed", "duplicates");
    int duplicates = 0;
    for (const auto& name : tasks) {
        const auto s = summarize(store.last_runs(name, 1'000'000));
        std::printf("%-15s %8zu %6zu %11zu %15zu %16zu %7zu %10d\n", name.c_str(), s.firings, s.slots.size(),
                    s.executions, s.skipped_locked, s.skipped_running, s.failed, s.duplicates);
        std::printf("%-15s   executed by:", "");
        for (const auto& [instance, n] : s.per_instance) std::printf(" %s=%d", instance.c_str(), n);
        std::printf("%s\n", s.lock_lost ? "  (lock lost!)" : "");
        duplicates += s.duplicates;
    }
    return duplicates;
}

}  // namespace demo
