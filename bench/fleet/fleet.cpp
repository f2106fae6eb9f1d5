// bench/fleet: a fleet of N instance processes x M tasks, all due on the same second, on
// PostgreSQL direct, PostgreSQL through PgBouncer (transaction pooling) and Redis. Every
// instance tries every task once per firing through the library's lock_provider as the scheduler
// does (try_lock with lock_at_most_for and lock_at_least_for, a short body, unlock), or through
// the raw client floor issuing the provider's statements or scripts with libpq or hiredis over
// the same number of connections. Two kinds of firing: contended (each task: 1 acquisition,
// N-1 refusals) and refused (every task held by the bench: N refusals, the refusal's own price).
// Provider and raw firings alternate round by round; figures are medians [min-max] over rounds
// and provider/raw ratios per round. docs/scaling.md holds the figures and the model built on them.
//
//   source /tmp/shedlock-env.sh   (or set SHEDLOCK_TEST_POSTGRES_URI, ..._PGBOUNCER_TRANSACTION_URI,
//                                  SHEDLOCK_TEST_REDIS_URI; a backend whose URI is unset is skipped)
//   fleet [--instances=20] [--tasks=500] [--rounds=5] [--threads=4] [--hold=5] [--body-ms=1]
//         [--backends=postgres,pgbouncer,redis]
#include "fleet_options.hpp"
#include "fleet_run.hpp"
#include "fleet_worker.hpp"

#include "../bench_stats.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

namespace {

namespace fleet = shedlock::bench::fleet;

/// HEAD of the source tree when the bench runs (not necessarily what it was built from), for the record.
std::string source_commit() {
    FILE* git = popen("git -C " FLEET_SOURCE_DIR " describe --always --dirty 2>/dev/null", "r");
    if (git == nullptr) return "unknown";
    char buffer[128] = {};
    const bool read = std::fgets(buffer, sizeof buffer, git) != nullptr;
    pclose(git);
    std::string commit = read ? buffer : "unknown";
    if (!commit.empty() && commit.back() == '\n') commit.pop_back();
    return commit;
}

void print_header(const fleet::fleet_options& options) {
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::printf("fleet: %d instances x %d tasks, %d threads each, hold %d s, body %d ms, %d rounds; source HEAD at run time %s; %s\n",
                options.instances, options.tasks, options.threads, options.hold_s, options.body_ms, options.rounds,
                source_commit().c_str(), date);
    shedlock::bench::print_load("at start");
}

int run_coordinator(const fleet::fleet_options& options) {
    print_header(options);
    int ran = 0;
    for (const auto& backend : options.backends) {
        const auto firings = fleet::run_backend(options, backend);
        fleet::report_backend(options, firings);
        ran += firings.backend.empty() ? 0 : 1;
        std::fflush(stdout);
    }
    shedlock::bench::print_load("at end");
    return ran == 0 ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc > 1 && std::strcmp(argv[1], "--worker") == 0) return fleet::run_worker(fleet::worker_plan::from_args(argc, argv));
        if (argc > 1 && std::strcmp(argv[1], "--help") == 0) return std::printf("%s", fleet::fleet_usage().c_str()), 0;
        return run_coordinator(fleet::parse_fleet_options(argc, argv));
    } catch (const fleet::usage_error& e) {
        std::fprintf(stderr, "fleet: %s\n%s", e.what(), fleet::fleet_usage().c_str());
        return 64;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fleet: %s\n", e.what());
        return 1;
    }
}
