// try_lock latency with 8 processes contending on one SQLite file.
//
// Compares the shedlock SQLite provider (its own busy handler: short jittered polls) with the
// fair raw baseline: a sqlite3 program opened as the provider opens its file (WAL,
// synchronous=NORMAL, no mutex) with SQLite's own busy_timeout handler (the same 5 s), running
// the provider's very statements (text from its dialect) with the same bound values
// (sqlite_raw.hpp). Rounds alternate the two variants, the first one changing every round, so
// load from elsewhere hits both alike. Per round and variant: p50/p99/p999/max of all attempts
// and the acquisitions per process; then each figure's median [min-max] over the rounds, never
// the best round.
//
//   bench_sqlite_contention [processes=8] [seconds=2] [rounds=4]
#include "bench_stats.hpp"
#include "sqlite_raw.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace bench = shedlock::bench;
using clock_type = std::chrono::steady_clock;
using attempt_fn = std::function<bool()>;  // one try_lock (+ unlock if acquired); true if acquired
constexpr auto lease = std::chrono::seconds{30};

struct worker_result {
    std::vector<std::int64_t> latencies_ns;
    long acquired = 0;
};

worker_result hammer(const attempt_fn& attempt, std::chrono::seconds duration) {
    worker_result r;
    const auto end = clock_type::now() + duration;
    while (clock_type::now() < end) {
        const auto start = clock_type::now();
        const bool got = attempt();
        r.latencies_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count());
        if (got) ++r.acquired;
    }
    return r;
}

attempt_fn shedlock_attempt(const std::string& path) {
    shedlock::providers::sqlite_options o;
    o.path = path;
    auto provider = std::shared_ptr<shedlock::lock_provider>(shedlock::providers::make_sqlite_lock_provider(o));
    const shedlock::lock_configuration config{"bench", lease};
    return [provider, config] {
        try {
            auto held = provider->try_lock(config);
            if (!held) return false;
            held->unlock();
            return true;
        } catch (const shedlock::storage_error&) {
            return false;
        }
    };
}

/// The baseline: the provider's two statements through plain sqlite3 and SQLite's busy_timeout.
attempt_fn raw_attempt(const std::string& path) {
    shedlock::providers::sqlite_options o;
    o.path = path;
    const auto provider = shedlock::providers::make_sqlite_lock_provider(o);
    const shedlock::providers::sql::statement_options plain{provider->supports_fencing(), false};
    auto lock = std::make_shared<bench::raw_own_sql_lock>(
        path, provider->dialect().acquire(provider->table(), plain).sql,
        provider->dialect().unlock(provider->table(), plain).sql, "raw", "raw-" + std::to_string(::getpid()));
    return [lock] {
        try {
            if (!lock->try_lock(lease)) return false;
            lock->unlock();
            return true;
        } catch (const std::runtime_error& e) {  // SQLITE_BUSY past busy_timeout, as storage_error above
            std::fprintf(stderr, "%s\n", e.what());
            return false;
        }
    };
}

/// One variant's rounds: each round's latency summary and acquisitions per process.
struct variant {
    const char* label;
    std::function<attempt_fn(const std::string&)> make;
    std::vector<bench::latency_summary> rounds;
    std::vector<std::vector<long>> acquired;
};

void run_round(variant& v, const std::string& path, int processes, std::chrono::seconds duration) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            auto result = hammer(v.make(path), duration);
            std::ofstream out(dir + "/out-" + std::to_string(p));
            out << result.acquired << "\n";
            for (auto ns : result.latencies_ns) out << ns << "\n";
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
    std::vector<std::int64_t> all;
    std::vector<long> per_process;
    for (int p = 0; p < processes; ++p) {
        std::ifstream in(dir + "/out-" + std::to_string(p));
        long acquired = 0;
        in >> acquired;
        per_process.push_back(acquired);
        for (std::int64_t ns; in >> ns;) all.push_back(ns);
    }
    v.rounds.push_back(bench::summarize(all));
    v.acquired.push_back(per_process);
}

void report(const variant& v) {
    auto field = [&v](double bench::latency_summary::*f, double scale) {
        std::vector<double> out;
        for (const auto& s : v.rounds) out.push_back(s.*f / scale);
        return bench::median_of(std::move(out));
    };
    std::printf("%s\n  p50 %s us | p99 %s ms | p999 %s ms | max %s ms\n", v.label,
                bench::format(field(&bench::latency_summary::p50_us, 1), "%.0f").c_str(),
                bench::format(field(&bench::latency_summary::p99_us, 1000), "%.2f").c_str(),
                bench::format(field(&bench::latency_summary::p999_us, 1000), "%.1f").c_str(),
                bench::format(field(&bench::latency_summary::max_us, 1000), "%.1f").c_str());
    std::vector<double> fewest, total;
    for (const auto& round : v.acquired) {
        fewest.push_back(static_cast<double>(*std::min_element(round.begin(), round.end())));
        double sum = 0;
        for (long a : round) sum += static_cast<double>(a);
        total.push_back(sum);
    }
    std::printf("  acquisitions per round %s; fewest in one process %s\n",
                bench::format(bench::median_of(total), "%.0f").c_str(),
                bench::format(bench::median_of(fewest), "%.0f").c_str());
    for (std::size_t r = 0; r < v.acquired.size(); ++r) {
        std::printf("  round %zu: %s; per process:", r + 1, bench::format(v.rounds[r]).c_str());
        for (long a : v.acquired[r]) std::printf(" %ld", a);
        std::printf("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int processes = argc > 1 ? std::stoi(argv[1]) : 8;
    const std::chrono::seconds duration{argc > 2 ? std::stoi(argv[2]) : 2};
    const int rounds = argc > 3 ? std::stoi(argv[3]) : 4;
    const auto dir = std::filesystem::temp_directory_path() / ("shedlock-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "bench.db").string();
    {
        shedlock::providers::sqlite_options o;
        o.path = path;
        o.create_schema_if_missing = true;
        (void)shedlock::providers::make_sqlite_lock_provider(o);
    }
    bench::print_load("at start");
    std::printf("try_lock+unlock, %d processes on one SQLite file, %d rounds of %llds per variant, alternating; "
                "median [min-max] over rounds\n",
                processes, rounds, static_cast<long long>(duration.count()));
    std::vector<variant> variants{{"raw sqlite3, busy_timeout, provider's statements", raw_attempt, {}, {}},
                                  {"shedlock sqlite", shedlock_attempt, {}, {}}};
    for (int r = 0; r < rounds; ++r)
        for (std::size_t k = 0; k < variants.size(); ++k)
            run_round(variants[r % 2 ? variants.size() - 1 - k : k], path, processes, duration);
    for (const auto& v : variants) report(v);
    bench::print_load("at end");
    std::filesystem::remove_all(dir);
    return 0;
}
