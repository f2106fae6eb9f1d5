// Idempotency claim + complete cycles per second of the SQLite store next to a raw floor, in one
// run, on one WAL file in a temporary directory. One thread, a new key per cycle (a claim inserts,
// complete updates: the once-per-business-day path), no contention.
//
//   store   claim(key) + complete(claim) through shedlock::sqlite idempotency store
//   raw     raw sqlite3 C API running the store's own two statements (text taken from its
//           dialect), prepared once, the same values bound, the RETURNING row read
//
// The floor opens the file as the provider does (journal_mode=WAL, synchronous=NORMAL). Slices
// alternate the variants in bursts so background load hits both alike; reported: the median
// cycles/s of each and the median per-slice ratio store time / raw time (target <= 1.10).
//
//   claim_cycles [slices=10] [cycles_per_burst=200]
#include <shedlock/providers/sqlite_idempotency_store.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using bench_clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The raw floor: the store's claim and finish statements, prepared once.
class raw_claims {
public:
    raw_claims(const std::string& path, const shedlock::providers::sql::claim_statements& sql) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK ||
            sqlite3_exec(db_, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr) ||
            sqlite3_prepare_v2(db_, sql.claim.c_str(), -1, &claim_, nullptr) ||
            sqlite3_prepare_v2(db_, sql.finish.c_str(), -1, &finish_, nullptr))
            throw std::runtime_error(std::string("raw sqlite: ") + sqlite3_errmsg(db_));
    }
    ~raw_claims() {
        sqlite3_finalize(claim_);
        sqlite3_finalize(finish_);
        sqlite3_close(db_);
    }
    raw_claims(const raw_claims&) = delete;
    raw_claims& operator=(const raw_claims&) = delete;

    void cycle(const std::string& key, const std::string& owner) {
        const auto now = shedlock::system_clock::instance().now();
        const std::string at = shedlock::format_timestamp(now), until = shedlock::format_timestamp(now + std::chrono::minutes{10});
        bind(claim_, {key, owner, "", at, until});
        if (sqlite3_step(claim_) != SQLITE_ROW) throw std::runtime_error("raw claim: no row");
        while (sqlite3_step(claim_) == SQLITE_ROW) {
        }
        sqlite3_reset(claim_);
        bind(finish_, {"done", shedlock::format_timestamp(shedlock::system_clock::instance().now()), "", key, owner});
        if (sqlite3_step(finish_) != SQLITE_DONE || sqlite3_changes(db_) != 1) throw std::runtime_error("raw finish");
        sqlite3_reset(finish_);
    }

private:
    static void bind(sqlite3_stmt* s, const std::vector<std::string>& values) {
        for (std::size_t i = 0; i < values.size(); ++i)
            sqlite3_bind_text(s, static_cast<int>(i + 1), values[i].data(), static_cast<int>(values[i].size()),
                              SQLITE_TRANSIENT);
    }
    sqlite3* db_ = nullptr;
    sqlite3_stmt* claim_ = nullptr;
    sqlite3_stmt* finish_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
    const int slices = argc > 1 ? std::atoi(argv[1]) : 10;
    const int burst = argc > 2 ? std::atoi(argv[2]) : 200;
    const auto dir = std::filesystem::temp_directory_path() / ("claim_cycles." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    shedlock::providers::sqlite_run_options options;
    options.path = (dir / "claims.db").string();
    options.table = "shedlock_claims";
    options.create_schema_if_missing = true;
    auto store = shedlock::providers::make_sqlite_idempotency_store(options);
    raw_claims raw(options.path, shedlock::providers::make_sqlite_dialect()->idempotency_statements(
                                     shedlock::providers::sql::table_name(options.table)));
    std::vector<double> store_rate, raw_rate, ratio;
    long key = 0;
    for (int s = 0; s < slices; ++s) {
        auto t0 = bench_clock::now();
        for (int i = 0; i < burst; ++i) {
            const auto claimed = store->claim("store:" + std::to_string(key++), std::chrono::minutes{10});
            if (!claimed.claim || store->complete(*claimed.claim, "") != shedlock::finish_status::finished)
                throw std::runtime_error("store cycle failed");
        }
        const double store_s = std::chrono::duration<double>(bench_clock::now() - t0).count();
        t0 = bench_clock::now();
        for (int i = 0; i < burst; ++i, ++key) raw.cycle("raw:" + std::to_string(key), "bench-owner-" + std::to_string(key));
        const double raw_s = std::chrono::duration<double>(bench_clock::now() - t0).count();
        store_rate.push_back(burst / store_s);
        raw_rate.push_back(burst / raw_s);
        ratio.push_back(store_s / raw_s);
    }
    std::printf("sqlite claim+complete: store %.0f cycles/s, raw %.0f cycles/s, store/raw time %.2fx (median of %d "
                "slices; min %.2fx, max %.2fx)\n",
                median(store_rate), median(raw_rate), median(ratio), slices,
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
    store.reset();
    std::filesystem::remove_all(dir);
}
