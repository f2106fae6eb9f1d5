// Lock+unlock cycles per second of the SQLite provider next to two raw sqlite3 floors, in one run,
// on one WAL file in a temporary directory. One thread, one lock name per variant, no contention.
//
//   provider      try_lock + unlock through shedlock (lock_at_least_for 0)
//   own SQL       raw sqlite3 C API, the provider's own two statements (text taken from its
//                 dialect), prepared once, the same values bound, the RETURNING row read
//   simplest SQL  raw sqlite3 C API, the two statements a user would write by hand, prepared once
//
// Both floors open the file as the provider does (journal_mode=WAL, synchronous=NORMAL, a busy
// timeout, no mutex) and format their timestamps with a hand-written digit writer, the cheapest a
// user would write. Each slice interleaves the variants in bursts of `burst` cycles, the order
// reversed every other turn, so background load hits all of them alike. Reported: medians over
// the slices with [min-max] of wall-clock cycles/s and of CPU time per cycle, and the per-slice
// ratios provider time / floor time (median [min-max]); never the best slice.
//
//   sqlite_cycles [slices=12] [seconds_per_slice=0.6] [burst=50] [variant]
//
// A variant's name ("provider", "raw, provider's own SQL", "raw, simplest SQL") runs it alone,
// for a profiler.
#include "bench_stats.hpp"
#include "sqlite_raw.hpp"

#include <shedlock/lock_handle.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench = shedlock::bench;

namespace {

using namespace std::chrono;
constexpr auto lease = seconds{60};

const char* const owner = "bench-host.example:123456:0123456789ab";  // the provider's token shape
const int owner_len = static_cast<int>(std::char_traits<char>::length(owner));

/// Floor 2: what a user writes by hand; success read from sqlite3_changes().
struct simplest_floor {
    bench::raw_sqlite raw;
    std::string name = "bench-simple";

    void cycle() {
        char now[24], until[24];
        const auto t = bench::now_ms();
        bench::format_utc(t, now);
        bench::format_utc(t + lease, until);
        const int n = static_cast<int>(name.size());
        raw.text(raw.acquire, 1, name.data(), n), raw.text(raw.acquire, 2, until, 23);
        raw.text(raw.acquire, 3, now, 23), raw.text(raw.acquire, 4, owner, owner_len);
        if (sqlite3_step(raw.acquire) != SQLITE_DONE || sqlite3_changes(raw.db) != 1) raw.fail("acquire");
        sqlite3_reset(raw.acquire);
        raw.text(raw.unlock, 1, now, 23), raw.text(raw.unlock, 2, name.data(), n), raw.text(raw.unlock, 3, owner, owner_len);
        if (sqlite3_step(raw.unlock) != SQLITE_DONE || sqlite3_changes(raw.db) != 1) raw.fail("unlock");
        sqlite3_reset(raw.unlock);
    }
};

const char* const simplest_acquire =
    "INSERT INTO shedlock (name, lock_until, locked_at, locked_by) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (name) DO UPDATE SET lock_until = excluded.lock_until, locked_at = excluded.locked_at, "
    "locked_by = excluded.locked_by WHERE lock_until <= ?3";
const char* const simplest_unlock = "UPDATE shedlock SET lock_until = ?1 WHERE name = ?2 AND locked_by = ?3";

}  // namespace

int main(int argc, char** argv) {
    const int slices = argc > 1 ? std::atoi(argv[1]) : 12;
    const duration<double> slice_length{argc > 2 ? std::atof(argv[2]) : 0.6};
    const long burst = argc > 3 ? std::atol(argv[3]) : 50;
    const std::string only = argc > 4 ? argv[4] : "";
    const auto dir = std::filesystem::temp_directory_path() / ("shedlock-sqlite-cycles-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "bench.db").string();
    try {
        shedlock::providers::sqlite_options o;
        o.path = path;
        o.create_schema_if_missing = true;
        auto provider = shedlock::providers::make_sqlite_lock_provider(o);
        const shedlock::lock_configuration config{"bench-provider", lease};
        const shedlock::providers::sql::statement_options plain{provider->supports_fencing(), false};
        bench::raw_own_sql_lock floor1(path, provider->dialect().acquire(provider->table(), plain).sql,
                                       provider->dialect().unlock(provider->table(), plain).sql, "bench-own", owner);
        simplest_floor floor2{bench::raw_sqlite(path, simplest_acquire, simplest_unlock)};

        bench::variant_list variants{{"provider", [&] {
                                   auto held = provider->try_lock(config);
                                   if (!held) throw std::runtime_error("provider: lock unexpectedly held");
                                   held->unlock();
                               }},
                              {"raw, provider's own SQL", [&] {
                                   if (!floor1.try_lock(lease)) throw std::runtime_error("raw: lock unexpectedly held");
                                   floor1.unlock();
                               }},
                              {"raw, simplest SQL", [&] { floor2.cycle(); }}};
        for (const auto& [label, cycle] : variants)
            for (int i = 0; i < 500; ++i) cycle();  // warm-up: page cache, statement caches
        if (!only.empty()) {  // one variant alone, for a profiler
            const auto it = std::find_if(variants.begin(), variants.end(),
                                         [&](const auto& v) { return only == v.first; });
            if (it == variants.end()) throw std::runtime_error("no variant \"" + only + "\"");
            variants = {*it};
        }

        bench::print_load("at start");
        const auto results = bench::run_slices(variants, slices, slice_length, burst);
        std::printf("SQLite lock+unlock cycles, one thread, WAL + synchronous=NORMAL: %d slices of %.2fs per variant, "
                    "variants alternating every %ld cycles\n",
                    slices, slice_length.count(), burst);
        bench::report_rates(variants, results);
        std::printf("  provider time / floor time, per slice (median [min-max]):\n");
        for (std::size_t f = 1; f < variants.size(); ++f) bench::report_ratio(variants, results, 0, f);
        bench::print_load("at end");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sqlite_cycles: %s\n", e.what());
        std::filesystem::remove_all(dir);
        return 1;
    }
    std::filesystem::remove_all(dir);
    return 0;
}
