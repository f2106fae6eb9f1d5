// Seed 003's scenario: a daily settlement on three instances, and the three layers that keep it
// to one settlement per day (docs/idempotency.md). Three instance processes fire the settlement of
// five business days on one backend; the faults that defeat a lock alone are injected:
//   day 2: the run that wins pauses longer than its lease (a GC pause, no keep-alive) and a retry
//          on another instance takes over;
//   day 3: an operator re-runs the finished day by hand;
//   day 4: the instance crashes after its ledger write, before it completes its claim (and before
//          it unlocks); it is restarted and the day is retried.
// The report shows settlements per day (must be exactly 1) and which layer stopped each duplicate.
// --without-idempotency runs the same faults with the lock alone and a plain INSERT: the
// duplicates come back (exit status 1).
//
//   daily_settlement [--provider URI] [--dir DIR] [--without-idempotency]
#include "settlement_ledger.hpp"

#include <shedlock/all_providers.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/provider_registry.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using wall = std::chrono::system_clock;

namespace {

const std::vector<std::string> days{"20240601", "20240602", "20240603", "20240604", "20240605"};
constexpr auto day_slot = 1500ms;        // one business day per slot
constexpr auto lease = 400ms;            // lock_at_most_for, and claim_for
constexpr auto minimum_hold = 300ms;     // lock_at_least_for: covers the instances' firing skew
constexpr auto misfire_grace = 1000ms;   // a firing found later than this is skipped

struct setup {
    std::string dir, provider;
    bool idempotency = true;
    wall::time_point start;
};

struct firing {
    std::size_t day;
    std::chrono::milliseconds offset;
    const char* why;
};

/// What instance `i` fires: every day at the slot start, plus the faults' extra firings.
std::vector<firing> plan(int i) {
    const auto skew = std::chrono::milliseconds{15 * i};
    std::vector<firing> out;
    for (std::size_t d = 0; d < days.size(); ++d) {
        out.push_back({d, skew, "scheduled"});
        if (d == 1) out.push_back({d, 600ms + skew, "retry after timeout"});
        if (d == 2 && i == 0) out.push_back({d, 900ms, "manual re-run"});
        if (d == 3) out.push_back({d, 800ms + skew, "retry after crash"});
    }
    return out;
}

/// One line per event, appended atomically (a short O_APPEND write) by every process.
void event(const setup& s, const std::string& day, const std::string& what, int instance, const std::string& why) {
    const std::string line = day + " " + what + " " + std::to_string(instance) + " " + why + "\n";
    const int fd = ::open((s.dir + "/events.log").c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
}

/// True for the first process to ask: each fault is injected once.
bool first_time(const setup& s, const std::string& fault) {
    const int fd = ::open((s.dir + "/fault-" + fault).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

void settle(const setup& s, settlement::ledger& book, int instance, const firing& f, shedlock::task_context& ctx) {
    const std::string& day = days[f.day];
    const auto token = ctx.fencing_token().value_or(0);
    if (f.day == 1 && first_time(s, "pause")) {
        event(s, day, "paused", instance, "longer than the lease");
        std::this_thread::sleep_for(900ms);
    }
    if (s.idempotency) {
        const auto written = book.settle_fenced(day, "instance-" + std::to_string(instance), token);
        event(s, day, settlement::to_string(written), instance, f.why);
        ctx.set_result(settlement::to_string(written));
    } else {
        book.settle_plain(day, "instance-" + std::to_string(instance), token);
        event(s, day, "settled", instance, f.why);
    }
    if (f.day == 3 && first_time(s, "crash")) {
        event(s, day, "crashed", instance, "after the ledger write");
        std::_Exit(3);  // no complete(), no unlock: the process is gone
    }
}

int run_instance(const setup& s, int instance) {
    const auto backend = shedlock::open_backend(s.provider);  // one pool for locks and claims
    auto& locks = backend->locks();
    shedlock::idempotency_store* claims = s.idempotency ? &backend->claims() : nullptr;
    settlement::ledger book(s.dir + "/ledger.db");
    shedlock::locking_task_executor executor(locks);
    for (const auto& f : plan(instance)) {
        const auto at = s.start + f.day * day_slot + f.offset;
        std::this_thread::sleep_until(at);
        const std::string& day = days[f.day];
        if (wall::now() > at + misfire_grace) {
            event(s, day, "missed", instance, f.why);
            continue;
        }
        shedlock::execute_options options;
        if (claims) options.idempotency = shedlock::idempotency_options{claims, "settle:" + day, lease};
        const auto result = executor.execute([&](shedlock::task_context& ctx) { settle(s, book, instance, f, ctx); },
                                             shedlock::lock_configuration("settle:" + day, lease, minimum_hold), options);
        if (result.outcome == shedlock::run_outcome::skipped_locked ||
            result.outcome == shedlock::run_outcome::skipped_done || result.outcome == shedlock::run_outcome::failed ||
            result.outcome == shedlock::run_outcome::lock_error)
            event(s, day, to_string(result.outcome), instance, f.why);
        if (result.claim_lost) event(s, day, "claim_lost", instance, f.why);
    }
    return 0;
}

pid_t start_instance(const setup& s, int instance) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        int code = 2;
        try {
            code = run_instance(s, instance);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "instance %d: %s\n", instance, e.what());
        }
        std::_Exit(code);
    }
    return pid;
}

/// Runs the three instances; a crashed one (exit 3) is restarted, as systemd would.
bool run_instances(const setup& s) {
    std::map<pid_t, int> running;
    for (int i = 0; i < 3; ++i) running[start_instance(s, i)] = i;
    bool ok = true;
    while (!running.empty()) {
        int status = 0;
        const pid_t pid = ::wait(&status);
        if (pid < 0) break;
        const int instance = running[pid];
        running.erase(pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
            std::printf("instance %d crashed; restarting it\n", instance);
            running[start_instance(s, instance)] = instance;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::printf("instance %d failed (status %d)\n", instance, status);
            ok = false;
        }
    }
    return ok;
}

int report(const setup& s, bool instances_ok) {
    std::map<std::string, std::map<std::string, int>> stops;  // day -> event -> count
    std::ifstream in(s.dir + "/events.log");
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string day, what;
        words >> day >> what;
        ++stops[day][what];
    }
    settlement::ledger book(s.dir + "/ledger.db");
    std::printf("\n%s\n%-9s %11s   %-56s\n", s.idempotency ? "with idempotency (lock + claim + fenced write)"
                                                           : "WITHOUT idempotency (lock only, plain INSERT)",
                "day", "settlements", "duplicates stopped by: skipped_locked skipped_done fence_rejected in_ledger");
    int duplicates = 0, missing = 0;
    for (const auto& day : days) {
        const int n = book.settlements(day);
        duplicates += n > 1 ? n - 1 : 0;
        missing += n == 0;
        auto& e = stops[day];
        std::printf("%-9s %11d   %37d %12d %14d %9d%s\n", day.c_str(), n, e["skipped_locked"], e["skipped_done"],
                    e["fence_rejected"], e["already_in_ledger"], n == 1 ? "" : "   <-- not exactly one");
    }
    std::printf("RESULT: duplicates=%d missing=%d\n", duplicates, missing);
    return duplicates == 0 && missing == 0 && instances_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    setup s;
    s.dir = (std::filesystem::temp_directory_path() / ("daily_settlement." + std::to_string(::getpid()))).string();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--without-idempotency") s.idempotency = false;
        else if (arg == "--provider" && i + 1 < argc) s.provider = argv[++i];
        else if (arg == "--dir" && i + 1 < argc) s.dir = argv[++i];
        else {
            std::fprintf(stderr, "usage: daily_settlement [--provider URI] [--dir DIR] [--without-idempotency]\n");
            return 64;
        }
    }
    std::filesystem::remove_all(s.dir);
    std::filesystem::create_directories(s.dir);
    if (s.provider.empty()) s.provider = "sqlite:" + s.dir + "/locks.db";
    shedlock::register_all_providers();
    {  // tables once, before the instances start
        const auto backend = shedlock::open_backend(s.provider, {.create_schema = true});
        (void)backend->locks();
        if (s.idempotency) (void)backend->claims();
        settlement::ledger book(s.dir + "/ledger.db");
    }
    s.start = wall::now() + 500ms;
    const bool ok = run_instances(s);
    return report(s, ok);
}
