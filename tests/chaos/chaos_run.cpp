#include "chaos_run.hpp"

#include "attempt_registry.hpp"
#include "chaos_clock.hpp"
#include "process.hpp"
#include "run_log.hpp"
#include "tcp_proxy.hpp"
#include "worker.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

namespace shedlock::chaos {
namespace {

std::string make_run_id() {
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::uint64_t n = static_cast<std::uint64_t>(now_us()) ^ (static_cast<std::uint64_t>(::getpid()) << 40);
    std::string id;
    for (int i = 0; i < 8; ++i, n /= 36) id += digits[n % 36];
    return id;
}

/// `shedlock schema apply` for each lane (SQL: creates the chaos table; Redis: nothing to do).
void apply_schema(const run_options& options, const std::vector<lane>& lanes) {
    for (const auto& where : lanes) {
        spawn_request r{{options.cli_path, "schema", "apply", "-p", where.uri}, base_environment(),
                        options.work_dir + "/schema.txt"};
        child_process child(spawn_process(r));
        if (!child.wait_exit(now_us() + 60'000'000)) ::kill(child.pid(), SIGKILL);
        bool signalled = false;
        if (child.reap(signalled) != 0)
            throw std::runtime_error("`shedlock schema apply` failed for lane " + where.label + "; see " + r.output_path);
    }
}

void print_progress(worker_shared& shared, std::int64_t start) {
    std::lock_guard lock(shared.records_mutex);
    std::printf("chaos: %lld s, %zu attempts\n", static_cast<long long>((now_us() - start) / 1'000'000),
                shared.records.size());
    std::fflush(stdout);
}

/// Lets the workers and the injector run for options.seconds, then stops them (bounded: each
/// worker ends after its current attempt, whose deadline is bounded).
void run_for(const run_options& options, worker_shared& shared, fault_injector& injector, run_outcome& out) {
    std::atomic<bool> stop_injector{false};
    out.start_us = now_us();
    std::thread injecting([&] { injector.run(stop_injector); });
    std::vector<std::thread> workers;
    std::mt19937_64 seeds(options.seed);
    for (int i = 0; i < options.workers; ++i) workers.emplace_back([&shared, i, seed = seeds()] { run_worker(shared, i, seed); });
    const std::int64_t end = out.start_us + options.seconds * 1'000'000LL;
    std::int64_t next_progress = out.start_us + 60'000'000;
    while (now_us() < end) {
        sleep_us(std::min<std::int64_t>(200'000, end - now_us()));
        if (now_us() >= next_progress) print_progress(shared, out.start_us), next_progress += 60'000'000;
    }
    out.end_us = now_us();
    stop_injector = true;
    injecting.join();  // heals the network and continues stopped attempts
    shared.stop = true;
    for (auto& w : workers) w.join();
}

}  // namespace

run_outcome run_chaos(const run_options& options) {
    run_outcome out;
    backend_setup setup = make_backend(options.backend, options.work_dir, make_run_id(), options.cli_path);
    std::vector<std::unique_ptr<tcp_proxy>> proxies;
    std::vector<bool> announced;  // the server's own proxy, which the lanes' URIs already lead through
    for (auto& server : setup.servers) {
        announced.push_back(server.proxy != nullptr);
        proxies.push_back(server.proxy ? std::move(server.proxy) : std::make_unique<tcp_proxy>(server.port));
    }
    for (auto& where : setup.lanes)
        if (where.server >= 0 && !announced[where.server])
            where.uri = redirect_uri(where.uri, setup.servers[where.server], proxies[where.server]->port());
    apply_schema(options, setup.lanes);
    out.lanes = setup.lanes;

    attempt_registry registry;
    worker_shared shared(options, setup.lanes, find_libfaketime(), registry);
    if (shared.libfaketime.empty() && (options.faults.count("clock") || options.faults.count("clock_jump")))
        throw std::runtime_error("clock faults need libfaketime, which was not found: install the Debian package "
                                 "faketime (scripts/install-deps.sh does), or leave clock and clock_jump out of --faults");
    fault_injector injector(options, setup, proxies, registry, options.seed ^ 0x5eedULL);
    run_for(options, shared, injector, out);

    out.attempts = std::move(shared.records);
    out.faults = injector.events();
    out.error = shared.error.empty() ? injector.error() : shared.error;
    out.journal = load_journal(options.work_dir + "/journal.log");
    write_run_log(options.work_dir, out.lanes, out.attempts, out.faults, out.start_us);
    return out;
}

}  // namespace shedlock::chaos
