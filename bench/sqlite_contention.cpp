// try_lock latency with 8 processes contending on one SQLite file.
//
// Compares the shedlock SQLite provider (short jittered busy polls) with the raw baseline: the
// same upsert through plain sqlite3 with SQLite's own busy_timeout handler, in the same run.
// Prints p50/p99/p999/max per variant and the acquisitions per process (starvation shows as 0).
//
//   bench_sqlite_contention [processes=8] [seconds=3]
#include "bench_stats.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
using attempt_fn = std::function<bool()>;  // one try_lock (+ unlock if acquired); true if acquired

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
    const shedlock::lock_configuration config{"bench", std::chrono::seconds{30}};
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

/// The baseline: the same two statements with plain sqlite3 and SQLite's default busy handler.
attempt_fn raw_attempt(const std::string& path) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    sqlite3_stmt* acquire = nullptr;
    sqlite3_stmt* release = nullptr;
    sqlite3_prepare_v2(db,
                       "INSERT INTO shedlock (name, lock_until, locked_at, locked_by, fencing_token) "
                       "VALUES ('raw', strftime('%Y-%m-%d %H:%M:%f','now','+30 seconds'), strftime('%Y-%m-%d %H:%M:%f','now'), ?1, 1) "
                       "ON CONFLICT (name) DO UPDATE SET lock_until = excluded.lock_until, locked_at = excluded.locked_at, "
                       "locked_by = excluded.locked_by, fencing_token = shedlock.fencing_token + 1 "
                       "WHERE shedlock.lock_until <= excluded.locked_at RETURNING fencing_token",
                       -1, &acquire, nullptr);
    sqlite3_prepare_v2(db, "UPDATE shedlock SET lock_until = strftime('%Y-%m-%d %H:%M:%f','now') WHERE name = 'raw' AND locked_by = ?1",
                       -1, &release, nullptr);
    const std::string owner = "raw-" + std::to_string(::getpid());
    return [=] {
        sqlite3_bind_text(acquire, 1, owner.c_str(), -1, SQLITE_STATIC);
        const int rc = sqlite3_step(acquire);
        const bool got = rc == SQLITE_ROW;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) std::fprintf(stderr, "raw acquire: %s\n", sqlite3_errmsg(db));
        while (sqlite3_step(acquire) == SQLITE_ROW) {
        }
        sqlite3_reset(acquire);
        if (got) {
            sqlite3_bind_text(release, 1, owner.c_str(), -1, SQLITE_STATIC);
            int rc = sqlite3_step(release);
            while (rc != SQLITE_DONE) {  // the baseline must release too, or it measures a stuck lock
                sqlite3_reset(release);
                rc = sqlite3_step(release);
            }
            sqlite3_reset(release);
        }
        return got;
    };
}

void run_variant(const char* label, const std::string& path, int processes, std::chrono::seconds duration,
                 const std::function<attempt_fn(const std::string&)>& make) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            auto result = hammer(make(path), duration);
            std::ofstream out(dir + "/" + label + "-" + std::to_string(p));
            out << result.acquired << "\n";
            for (auto ns : result.latencies_ns) out << ns << "\n";
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
    std::vector<std::int64_t> all;
    std::string per_process;
    for (int p = 0; p < processes; ++p) {
        std::ifstream in(dir + "/" + label + "-" + std::to_string(p));
        long acquired = 0;
        in >> acquired;
        per_process += " " + std::to_string(acquired);
        for (std::int64_t ns; in >> ns;) all.push_back(ns);
    }
    const auto s = shedlock::bench::summarize(all);
    std::printf("%-22s %s\n%-22s acquisitions per process:%s\n", label, shedlock::bench::format(s).c_str(), "",
                per_process.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const int processes = argc > 1 ? std::stoi(argv[1]) : 8;
    const std::chrono::seconds duration{argc > 2 ? std::stoi(argv[2]) : 3};
    const auto dir = std::filesystem::temp_directory_path() / ("shedlock-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "bench.db").string();
    {
        shedlock::providers::sqlite_options o;
        o.path = path;
        o.create_schema_if_missing = true;
        (void)shedlock::providers::make_sqlite_lock_provider(o);
    }
    std::printf("try_lock+unlock, %d processes on one SQLite file, %llds each\n", processes,
                static_cast<long long>(duration.count()));
    run_variant("raw sqlite3 busy_timeout", path, processes, duration, raw_attempt);
    run_variant("shedlock sqlite", path, processes, duration, shedlock_attempt);
    std::filesystem::remove_all(dir);
    return 0;
}
