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
#include <shedlock/lock_handle.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sqlite3.h>
#include <time.h>
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

namespace {

using namespace std::chrono;
using clock_type = steady_clock;
constexpr auto lease = seconds{60};

/// "YYYY-MM-DD HH:MM:SS.mmm" (UTC) into `out` (24 bytes with the NUL), without printf or locale.
void format_utc(sys_time<milliseconds> t, char* out) {
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const auto ms = (t - day).count();
    auto put = [&out](long value, int width) {
        for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
        out += width;
    };
    put(static_cast<int>(ymd.year()), 4), *out++ = '-';
    put(static_cast<unsigned>(ymd.month()), 2), *out++ = '-';
    put(static_cast<unsigned>(ymd.day()), 2), *out++ = ' ';
    put(ms / 3'600'000, 2), *out++ = ':';
    put(ms / 60'000 % 60, 2), *out++ = ':';
    put(ms / 1000 % 60, 2), *out++ = '.';
    put(ms % 1000, 3), *out = '\0';
}

sys_time<milliseconds> now_ms() { return floor<milliseconds>(system_clock::now()); }

/// A raw connection opened the way the provider opens its own.
struct raw_db {
    sqlite3* db = nullptr;
    sqlite3_stmt* acquire = nullptr;
    sqlite3_stmt* unlock = nullptr;

    raw_db(const std::string& path, const std::string& acquire_sql, const std::string& unlock_sql) {
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            nullptr) != SQLITE_OK)
            fail("open");
        sqlite3_busy_timeout(db, 5000);
        if (sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr))
            fail("pragmas");
        if (sqlite3_prepare_v2(db, acquire_sql.c_str(), -1, &acquire, nullptr) ||
            sqlite3_prepare_v2(db, unlock_sql.c_str(), -1, &unlock, nullptr))
            fail("prepare");
    }
    raw_db(const raw_db&) = delete;
    raw_db& operator=(const raw_db&) = delete;
    ~raw_db() {
        sqlite3_finalize(acquire);
        sqlite3_finalize(unlock);
        sqlite3_close(db);
    }
    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string("raw sqlite3 ") + what + ": " + sqlite3_errmsg(db));
    }
    void text(sqlite3_stmt* s, int i, const char* value, int n) const {
        if (sqlite3_bind_text(s, i, value, n, SQLITE_STATIC) != SQLITE_OK) fail("bind");
    }
};

const char* const owner = "bench-host.example:123456:0123456789ab";  // the provider's token shape
const int owner_len = static_cast<int>(std::char_traits<char>::length(owner));

/// Floor 1: the provider's statements, values bound in its slot order, the RETURNING row read.
struct own_sql_floor {
    raw_db raw;
    std::string name = "bench-own";

    void cycle() {
        char now[24], until[24];
        const auto t = now_ms();
        format_utc(t, now);
        format_utc(t + lease, until);
        const int n = static_cast<int>(name.size());
        raw.text(raw.acquire, 1, name.data(), n), raw.text(raw.acquire, 2, until, 23);
        raw.text(raw.acquire, 3, now, 23), raw.text(raw.acquire, 4, owner, owner_len);
        int rc = sqlite3_step(raw.acquire);
        if (rc != SQLITE_ROW) raw.fail("acquire returned no row");
        const bool readable = sqlite3_column_text(raw.acquire, 0) && sqlite3_column_text(raw.acquire, 1) &&
                              sqlite3_column_int64(raw.acquire, 2) > 0;
        while (rc == SQLITE_ROW) rc = sqlite3_step(raw.acquire);
        if (rc != SQLITE_DONE || !readable) raw.fail("acquire");
        sqlite3_reset(raw.acquire);
        raw.text(raw.unlock, 1, now, 23), raw.text(raw.unlock, 2, name.data(), n);
        raw.text(raw.unlock, 3, owner, owner_len), raw.text(raw.unlock, 4, now, 23);
        if (sqlite3_step(raw.unlock) != SQLITE_DONE || sqlite3_changes(raw.db) != 1) raw.fail("unlock");
        sqlite3_reset(raw.unlock);
    }
};

/// Floor 2: what a user writes by hand; success read from sqlite3_changes().
struct simplest_floor {
    raw_db raw;
    std::string name = "bench-simple";

    void cycle() {
        char now[24], until[24];
        const auto t = now_ms();
        format_utc(t, now);
        format_utc(t + lease, until);
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

struct stats {
    double median, min, max;
};

stats summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {median, v.front(), v.back()};
}

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// What one variant did in one slice: cycles, wall time, CPU time (user + system, this thread).
/// On a loaded machine the wall time also holds the time the scheduler ran other processes;
/// the CPU time does not.
struct tally {
    long cycles = 0;
    double wall = 0, cpu = 0;
    double rate() const { return static_cast<double>(cycles) / wall; }
    double cpu_us() const { return cpu * 1e6 / static_cast<double>(cycles); }
};

using variant_list = std::vector<std::pair<const char*, std::function<void()>>>;

void run_burst(const std::function<void()>& cycle, long n, tally& t) {
    const double cpu_start = thread_cpu_seconds();
    const auto start = clock_type::now();
    for (long i = 0; i < n; ++i) cycle();
    t.wall += duration<double>(clock_type::now() - start).count();
    t.cpu += thread_cpu_seconds() - cpu_start;
    t.cycles += n;
}

/// One slice: bursts of `burst` cycles of each variant in turn, the order reversed every other
/// turn, until each variant has run about `length`. Fine interleaving gives every variant the
/// same share of whatever else the machine does during the slice.
std::vector<tally> run_slice(const variant_list& variants, duration<double> length, long burst) {
    std::vector<tally> out(variants.size());
    const auto end = clock_type::now() + duration_cast<clock_type::duration>(length * variants.size());
    for (std::size_t turn = 0; clock_type::now() < end; ++turn)
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::size_t v = turn % 2 ? variants.size() - 1 - k : k;
            run_burst(variants[v].second, burst, out[v]);
        }
    return out;
}

void report(const variant_list& variants, const std::vector<std::vector<tally>>& slices) {
    auto over_slices = [&](auto&& value) {
        std::vector<double> out;
        for (const auto& slice : slices) out.push_back(value(slice));
        return summarize(out);
    };
    std::printf("  %-26s %-26s %s\n", "", "wall: cycles/s [min-max]", "CPU: us/cycle [min-max]");
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const auto rate = over_slices([v](const auto& s) { return s[v].rate(); });
        const auto cpu = over_slices([v](const auto& s) { return s[v].cpu_us(); });
        std::printf("  %-26s %7.0f [%.0f-%.0f]      %6.2f [%.2f-%.2f]\n", variants[v].first, rate.median, rate.min,
                    rate.max, cpu.median, cpu.min, cpu.max);
    }
    std::printf("  provider time / floor time, per slice (median [min-max]):\n");
    for (std::size_t f = 1; f < variants.size(); ++f) {
        const auto wall = over_slices([f](const auto& s) { return s[f].rate() / s[0].rate(); });
        const auto cpu = over_slices([f](const auto& s) { return s[0].cpu_us() / s[f].cpu_us(); });
        std::printf("  vs %-23s wall %.3f [%.3f-%.3f]   CPU %.3f [%.3f-%.3f]\n", variants[f].first, wall.median,
                    wall.min, wall.max, cpu.median, cpu.min, cpu.max);
    }
}

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
        own_sql_floor floor1{raw_db(path, provider->dialect().acquire(provider->table(), plain).sql,
                                    provider->dialect().unlock(provider->table(), plain).sql)};
        simplest_floor floor2{raw_db(path, simplest_acquire, simplest_unlock)};

        variant_list variants{{"provider", [&] {
                                   auto held = provider->try_lock(config);
                                   if (!held) throw std::runtime_error("provider: lock unexpectedly held");
                                   held->unlock();
                               }},
                              {"raw, provider's own SQL", [&] { floor1.cycle(); }},
                              {"raw, simplest SQL", [&] { floor2.cycle(); }}};
        for (const auto& [label, cycle] : variants)
            for (int i = 0; i < 500; ++i) cycle();  // warm-up: page cache, statement caches
        if (!only.empty()) {  // one variant alone, for a profiler
            const auto it = std::find_if(variants.begin(), variants.end(),
                                         [&](const auto& v) { return only == v.first; });
            if (it == variants.end()) throw std::runtime_error("no variant \"" + only + "\"");
            variants = {*it};
        }

        std::vector<std::vector<tally>> results;
        for (int s = 0; s < slices; ++s) results.push_back(run_slice(variants, slice_length, burst));
        std::printf("SQLite lock+unlock cycles, one thread, WAL + synchronous=NORMAL: %d slices of %.2fs per variant, "
                    "variants alternating every %ld cycles\n",
                    slices, slice_length.count(), burst);
        report(variants, results);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sqlite_cycles: %s\n", e.what());
        std::filesystem::remove_all(dir);
        return 1;
    }
    std::filesystem::remove_all(dir);
    return 0;
}
