#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace shedlock::chaos {
namespace {

const char* const usage = R"(usage: chaos_suite --backend sqlite|postgres|mysql|redis|postgres_pgbouncer|redis_sentinel|redis_cluster|
                          postgres_failover[_sync] [options]
  postgres_failover[_sync]: a primary + streaming replica of the run's own (async, or sync:
                     remote_apply) behind one multi-host URI; its "restart" fault is a failover
  postgres_pgbouncer: the test server through its transaction-pooling PgBouncer
                     (SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI); "restart" is the server's
  redis_sentinel:    a primary, replica and three sentinels of the run's own; "restart" is a
                     failover (lanes no_wait and wait_replicas)
  redis_cluster:     a 3-primary cluster of the run's own; "restart" fails over the primary of
                     one lane's key (lanes no_wait and wait_replicas)
  --seconds N        run the workers N seconds (default 60)
  --soak             run 4 hours (unless --seconds is given too)
  --workers N        concurrent `shedlock run` loops (default 6)
  --at-most-ms N     lock_at_most_for of every attempt (default 2000)
  --slack-ms N       recovery slack of the gap bound (default 3000)
  --seed N           replay a run's random choices (printed at start)
  --faults a,b,..    fault kinds to inject (default all that apply):
                     kill_cli kill_command stop restart latency black_hole reset clock clock_jump
                     release_delay (a holder's release held in the network while its lease is live)
  --no-faults        inject nothing (baseline)
  --clock-rate P     share of attempts run with a skewed client clock (default 0.05):
                     clock = skewed from the start, clock_jump = jumps while the lock is held
  --keep-alive-rate P  share of attempts run with --keep-alive (default 0.25)
  --planted BUG      workers run chaos_planted_worker with BUG planted: none
                     unlock_no_owner extend_no_owner tokens_not_incremented skewed_db_time
  --async            workers run chaos_async_worker: the lock through shedlock::asio (async_try_lock,
                     async_extend, async_unlock on one io_context thread) instead of `shedlock run`
  --expect a,b,..    pass only if these violation kinds were found (planted-bug tests)
  --work-dir DIR     where the journal, databases and logs go (default: a new dir under
                     $SHEDLOCK_TEST_TMPDIR or /tmp)
  --table-out FILE   also append the result rows to FILE
  --print-header     print the table's header line and exit (alone)
Server backends read SHEDLOCK_TEST_<X>_URI/_DIR/_SCRIPT (providers/<backend>/server.sh start).
Exit status: 0 no violation (or every --expect kind found), 1 violations, 2 setup error.
)";

std::set<std::string> split_list(const std::string& text) {
    std::set<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) items.insert(item);
    return items;
}

void check_subset(const std::set<std::string>& given, const std::set<std::string>& known, const char* what) {
    for (const auto& item : given)
        if (!known.count(item)) throw std::invalid_argument(std::string("unknown ") + what + " \"" + item + "\"");
}

}  // namespace

const std::set<std::string>& all_fault_kinds() {
    static const std::set<std::string> kinds{"kill_cli", "kill_command", "stop",  "restart",   "latency",
                                             "black_hole", "reset",      "clock", "clock_jump", "release_delay"};
    return kinds;
}

const std::set<std::string>& all_violation_kinds() {
    static const std::set<std::string> kinds{"accepted_overlap", "token_order", "duplicate_token", "token_regression",
                                             "exclusion",        "at_least",    "gap",             "status",
                                             "stale_extend"};
    return kinds;
}

std::string backend_label(const run_options& o) { return o.async_api ? o.backend + "/async" : o.backend; }

run_options parse_options(int argc, char** argv) {
    run_options o;
    bool seconds_given = false, soak = false;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string_view arg = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(std::string(arg) + " needs a value");
                return argv[++i];
            };
            if (arg == "--help") {
                std::fputs(usage, stdout);
                std::exit(0);
            } else if (arg == "--backend") o.backend = value();
            else if (arg == "--seconds") o.seconds = std::stoi(value()), seconds_given = true;
            else if (arg == "--soak") soak = true;
            else if (arg == "--workers") o.workers = std::stoi(value());
            else if (arg == "--at-most-ms") o.at_most = std::chrono::milliseconds{std::stoll(value())};
            else if (arg == "--slack-ms") o.slack_ms = std::stoll(value());
            else if (arg == "--seed") o.seed = std::stoull(value());
            else if (arg == "--faults") o.faults = split_list(value());
            else if (arg == "--no-faults") o.faults.clear();
            else if (arg == "--clock-rate") o.clock_rate = std::stod(value());
            else if (arg == "--keep-alive-rate") o.keep_alive_rate = std::stod(value());
            else if (arg == "--planted") o.planted = value();
            else if (arg == "--async") o.async_api = true;
            else if (arg == "--expect") o.expect = split_list(value());
            else if (arg == "--work-dir") o.work_dir = value();
            else if (arg == "--table-out") o.table_out = value();
            else if (arg == "--cli") o.cli_path = value();
            else if (arg == "--resource") o.resource_path = value();
            else if (arg == "--planted-worker") o.planted_path = value();
            else if (arg == "--async-worker") o.async_path = value();
            else throw std::invalid_argument("unknown option " + std::string(arg));
        }
        if (soak && !seconds_given) o.seconds = 4 * 3600;
        static const std::set<std::string> backends{"sqlite",           "postgres",          "mysql", "redis",
                                                    "postgres_failover", "postgres_failover_sync", "postgres_pgbouncer",
                                                    "redis_sentinel", "redis_cluster"};
        if (!backends.count(o.backend))
            throw std::invalid_argument("--backend must be sqlite, postgres, mysql, redis, postgres_pgbouncer, "
                                        "redis_sentinel, redis_cluster, postgres_failover or postgres_failover_sync");
        if (o.clock_rate < 0 || o.clock_rate > 1 || o.keep_alive_rate < 0 || o.keep_alive_rate > 1)
            throw std::invalid_argument("--clock-rate and --keep-alive-rate must be 0..1");
        if (o.seconds < 1 || o.workers < 1 || o.workers > 64 || o.at_most.count() < 200)
            throw std::invalid_argument("--seconds >= 1, --workers 1..64 and --at-most-ms >= 200, please");
        if (o.async_api && !o.planted.empty())
            throw std::invalid_argument("--async and --planted exclude each other (the planted worker is blocking)");
        check_subset(o.faults, all_fault_kinds(), "fault kind");
        check_subset(o.expect, all_violation_kinds(), "violation kind");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "chaos_suite: %s\n\n%s", e.what(), usage);
        std::exit(2);
    }
    return o;
}

}  // namespace shedlock::chaos
