#include "worker.hpp"

#include "attempt_plan.hpp"
#include "chaos_clock.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace shedlock::chaos {
namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::trunc) << text << '\n'; }

/// A status a worker attempt may end with without further explanation; anything else keeps
/// the first line of the output for the report.
bool ordinary(int status) { return status == 0 || status == 3 || status == 75; }

/// The flags `shedlock run` (and the planted worker) print about the lock itself.
void read_output(const std::string& path, attempt_record& record) {
    const std::string text = read_text(path);
    record.unlock_failed = text.find("releasing lock") != std::string::npos && text.find("failed") != std::string::npos;
    record.lock_lost = text.find("was lost while the command ran") != std::string::npos;
    if (!ordinary(record.status)) record.message = text.substr(0, text.find('\n'));
}

/// Starts the attempt; retries for a few seconds when the binary is being replaced (a
/// concurrent rebuild makes exec fail with "text file busy" or "permission denied").
pid_t spawn_retrying(const spawn_request& request) {
    for (int tries = 1;; ++tries) {
        try {
            return spawn_process(request);
        } catch (const std::exception&) {
            if (tries >= 50) throw;
            sleep_us(100'000);
        }
    }
}

/// Kills an attempt that outlived its deadline, and its command.
void kill_hung(attempt_registry& registry, std::int64_t id) {
    registry.with_attempt(id, [](running_attempt& r) {
        for (pid_t child : children_of(r.cli))
            if (const int fd = open_child_pidfd(r.cli, child); fd >= 0) {
                send_signal(fd, SIGKILL);
                ::close(fd);
            }
        ::kill(r.cli, SIGKILL);
    });
}

/// The longest an attempt may take before the driver calls it hung: the hold, a lease or two of
/// waiting for a server, and generous room for a loaded machine.
std::int64_t deadline_for(const attempt_plan& plan, const run_options& options) {
    return (plan.hold_ms + 3 * options.at_most.count() + 30'000) * 1000;
}

attempt_record run_attempt(worker_shared& shared, const attempt_plan& plan) {
    const run_options& options = shared.options;
    if (plan.clock.active()) write_text(clock_file(options, plan.id), initial_clock_text(plan));
    const spawn_request request = build_request(plan, shared.lanes[plan.lane], options, shared.libfaketime);
    attempt_record record;
    record.plan = plan;
    record.spawn_us = now_us();
    child_process child(spawn_retrying(request));
    shared.registry.add(plan, child.pid(), record.spawn_us);
    if (!child.wait_exit(record.spawn_us + deadline_for(plan, options))) {
        record.hung = true;
        kill_hung(shared.registry, plan.id);
        child.wait_exit(now_us() + 10'000'000);
    }
    record.exit_us = now_us();
    record.faults = shared.registry.finish(plan.id);  // from here on nobody signals this pid
    record.status = child.reap(record.cli_signalled);
    read_output(request.output_path, record);
    if (plan.clock.active()) ::unlink(clock_file(options, plan.id).c_str());
    return record;
}

/// A pause before the next firing; longer after "backend unavailable", like a retry would.
std::int64_t pause_after(std::mt19937_64& rng, int status) {
    auto between = [&](int lo, int hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng) * 1000; };
    if (status == 75) return between(10, 60);
    if (status == 69) return between(100, 300);
    return between(0, 30);
}

}  // namespace

void run_worker(worker_shared& shared, int index, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const bool can_skew = !shared.libfaketime.empty();
    // Bounded in time: each attempt ends by its deadline, and stop is set at the end of the run.
    while (!shared.stop) {
        const attempt_plan plan = draw_plan(rng, shared.options, shared.lanes, can_skew, index, shared.next_attempt++);
        attempt_record record;
        try {
            record = run_attempt(shared, plan);
        } catch (const std::exception& e) {
            std::lock_guard lock(shared.records_mutex);
            shared.error = "worker " + std::to_string(index) + ": " + e.what();
            return;
        }
        const int status = record.status;
        {
            std::lock_guard lock(shared.records_mutex);
            shared.records.push_back(std::move(record));
        }
        sleep_us(pause_after(rng, status));
    }
}

std::string find_libfaketime() {
    if (const char* path = std::getenv("SHEDLOCK_CHAOS_LIBFAKETIME"); path && *path) return path;
    for (const char* path : {"/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
                             "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
                             "/usr/lib/faketime/libfaketimeMT.so.1", "/usr/local/lib/faketime/libfaketimeMT.so.1"})
        if (::access(path, R_OK) == 0) return path;
    return "";
}

}  // namespace shedlock::chaos
