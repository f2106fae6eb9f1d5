// Idempotency claim + complete cycles per second of each backend's store next to two raw floors,
// in one run per backend. One thread, a new key per cycle (a claim inserts, complete updates: the
// once-per-business-day path), no contention.
//
//   store  claim(key, 10 min) + complete(claim, "") through the backend's idempotency store
//   raw    the backend's client library directly (sqlite3, libpqxx, MariaDB C API, hiredis),
//          running the store's own statements or scripts, their text taken from the provider's
//          dialect (sql::claim_statements) or script source (redis_scripts.hpp) so they cannot
//          drift: prepared once (EVALSHA for Redis), the same values bound, the claim's answer
//          read and checked as a hand-written program must:
//            SQLite, PostgreSQL  claim (INSERT ... ON CONFLICT ... RETURNING attempt, result),
//                                its row read; finish (UPDATE, owner-checked), 1 row affected
//            MariaDB             claim (INSERT ... ON DUPLICATE KEY UPDATE), 1 row affected
//                                (a new record: attempt 1, nothing to read); finish as above.
//                                A third variant reads the record back after the claim (the
//                                dialect's `find`), as the store did before it read 1 affected
//                                row as "new": the cost of that round trip.
//            Redis               the claim script (EVALSHA, answer array read), the finish script
//          Both sides make the owner token with shedlock::make_owner_token() and format times
//          the same way, so the ratio is the store's own overhead (pool, checks, result copies).
//   hand-written  the simplest claim a user could write (claim_hand_written.hpp): a plain INSERT
//          of a new key and an owner-checked UPDATE on a table of its own (Redis: SET NX PX, then
//          SET XX PX), raw sqlite3, libpq, MariaDB C API, hiredis. It does less than any
//          complete store (no take-over, no result), so it is the lowest floor; the ratio to it
//          is what the store's semantics and code cost together.
//
// Sessions match the provider's: SQLite WAL + synchronous=NORMAL; PostgreSQL DateStyle=ISO and
// the statement_timeout; MariaDB time_zone '+00:00' and max_statement_time. Each slice
// interleaves the variants in bursts of `burst` cycles, the order reversed every other turn, so
// background load hits both alike (bench_stats.hpp). Reported per backend: medians [min-max]
// over the slices of cycles/s and CPU us/cycle, and of the per-slice ratio store time / floor
// time for each floor (target <= 1.10 against the raw own statements); never the best slice.
// MariaDB's "read-back" variant is slower than the store by design: its ratio is printed as a
// reference, with no target. The load average is printed at start and end.
//
//   [SHEDLOCK_TEST_POSTGRES_URI=postgresql://...] [SHEDLOCK_TEST_MYSQL_URI=mysql://...]
//   [SHEDLOCK_TEST_REDIS_URI=redis://...]
//     claim_cycles [slices=10] [seconds_per_slice=0.5] [burst=20] [backends=sqlite,postgres,mysql,redis]
// SQLite always runs (a temporary WAL file); a server backend runs when its URI is set.
#include "bench_stats.hpp"
#include "claim_hand_written.hpp"

#include <shedlock/idempotency_store.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/time.hpp>

#ifdef CLAIM_BENCH_SQLITE
#include <shedlock/providers/sqlite_idempotency_store.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sqlite3.h>
#endif
#ifdef CLAIM_BENCH_POSTGRES
#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <pqxx/pqxx>
#endif
#ifdef CLAIM_BENCH_MYSQL
#include <shedlock/providers/mysql_idempotency_store.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <mysql.h>
#endif
#ifdef CLAIM_BENCH_REDIS
#include "redis_raw.hpp"

#include <shedlock/providers/redis_idempotency_store.hpp>
#endif

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace shedlock;
namespace bench = shedlock::bench;
using std::chrono::minutes;

namespace {

int slices = 10;
std::chrono::duration<double> slice_length{0.5};
long burst = 20;
std::string backends = "sqlite,postgres,mysql,redis";
/// Keys of this run: a server's table keeps the records of earlier runs.
const std::string run_tag = "bench" + std::to_string(::getpid()) + "-" +
                            std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);

bool wanted(const std::string& backend) {
    return ("," + backends + ",").find("," + backend + ",") != std::string::npos;
}

/// Times of one claim: now, and now + 10 minutes, as the stores format them.
struct claim_times {
    std::string at, until;
};
claim_times times_now() {
    const auto now = system_clock::instance().now();
    return {format_timestamp(now), format_timestamp(now + minutes{10})};
}

/// The store's cycle on a new key.
std::function<void()> store_cycle(idempotency_store& store) {
    return [&store, n = 0L]() mutable {
        const auto claimed = store.claim(run_tag + ":store:" + std::to_string(++n), minutes{10});
        if (!claimed.claim || store.complete(*claimed.claim, "") != finish_status::finished)
            throw std::runtime_error("store cycle failed");
    };
}

/// A server store's options from its URI: the bench table, created if missing, one connection.
template <class Options>
Options server_store_options(const char* uri) {
    auto options = Options::from_uri(parse_provider_uri(uri));
    options.table = "bench_claims";
    options.create_schema_if_missing = true;
    options.pool_size = 1;
    return options;
}

/// Warm-up (connect, prepare, script cache), then the interleaved slices and the ratios: variant
/// 0 (the store) against variant 1 (raw own statements, the target's floor) and variant 2 (the
/// hand-written floor), then against any later variant (slower references, no target).
void measure(const char* title, const bench::variant_list& variants) {
    for (const auto& v : variants)
        for (int i = 0; i < 50; ++i) v.second();
    const auto results = bench::run_slices(variants, slices, slice_length, burst);
    std::printf("%s claim+complete, one thread, new key per cycle: %d slices of %.2fs per variant, alternating every "
                "%ld cycles\n",
                title, slices, slice_length.count(), burst);
    bench::report_rates(variants, results);
    std::printf("  store time / floor time, per slice (median [min-max]); target <= 1.10 against the raw own "
                "statements:\n");
    for (std::size_t floor = 1; floor < variants.size() && floor <= 2; ++floor)
        bench::report_ratio(variants, results, 0, floor);
    if (variants.size() > 3) std::printf("  store time / slower references (not floors, no target):\n");
    for (std::size_t other = 3; other < variants.size(); ++other) bench::report_ratio(variants, results, 0, other);
    std::fflush(stdout);
}

#ifdef CLAIM_BENCH_SQLITE
/// The raw floor: the store's claim and finish statements, prepared once.
class raw_sqlite_claims {
public:
    raw_sqlite_claims(const std::string& path, const providers::sql::claim_statements& sql) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK ||
            sqlite3_exec(db_, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr) ||
            sqlite3_prepare_v2(db_, sql.claim.c_str(), -1, &claim_, nullptr) ||
            sqlite3_prepare_v2(db_, sql.finish.c_str(), -1, &finish_, nullptr))
            throw std::runtime_error(std::string("raw sqlite: ") + sqlite3_errmsg(db_));
    }
    ~raw_sqlite_claims() {
        sqlite3_finalize(claim_);
        sqlite3_finalize(finish_);
        sqlite3_close(db_);
    }
    raw_sqlite_claims(const raw_sqlite_claims&) = delete;
    raw_sqlite_claims& operator=(const raw_sqlite_claims&) = delete;

    void cycle(const std::string& key) {
        const std::string owner = make_owner_token();
        const auto t = times_now();
        bind(claim_, {key, owner, "", t.at, t.until});
        if (sqlite3_step(claim_) != SQLITE_ROW) throw std::runtime_error("raw claim: no row");
        const std::string attempt = reinterpret_cast<const char*>(sqlite3_column_text(claim_, 0));
        const auto* result = sqlite3_column_text(claim_, 1);
        if (attempt != "1" || result == nullptr) throw std::runtime_error("raw claim: unexpected row");
        while (sqlite3_step(claim_) == SQLITE_ROW) {
        }
        sqlite3_reset(claim_);
        bind(finish_, {"done", format_timestamp(system_clock::instance().now()), "", key, owner});
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

void bench_sqlite() {
    const auto dir = std::filesystem::temp_directory_path() / ("claim_cycles." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        providers::sqlite_run_options options;
        options.path = (dir / "claims.db").string();
        options.table = "shedlock_claims";
        options.create_schema_if_missing = true;
        auto store = providers::make_sqlite_idempotency_store(options);
        auto raw = std::make_shared<raw_sqlite_claims>(
            options.path,
            providers::make_sqlite_dialect()->claim_set(providers::sql::table_name(options.table))->text());
        std::printf("SQLite %s (WAL, synchronous=NORMAL)\n", options.path.c_str());
        measure("SQLite", {{"store", store_cycle(*store)},
                           {"raw own statements", [raw, n = 0L]() mutable {
                                raw->cycle(run_tag + ":raw:" + std::to_string(++n));
                            }},
                           {"hand-written INSERT+UPDATE sqlite3",
                            bench::hand_written_sqlite(options.path, run_tag + ":hand:")}});
    }
    std::filesystem::remove_all(dir);
}
#endif

#ifdef CLAIM_BENCH_POSTGRES
void bench_postgres(const char* uri) {
    const auto options = server_store_options<providers::postgres_run_options>(uri);
    const auto& o = options.server;
    std::printf("PostgreSQL %s\n", o.redacted_uri().c_str());
    auto store = providers::make_postgres_idempotency_store(options);
    const auto sql =
        providers::make_postgres_dialect()->claim_set(providers::sql::table_name(options.table))->text();
    auto conn = std::make_shared<pqxx::connection>(
        "host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database + " user=" + o.user +
        " password=" + o.password.value_or("") + " options='-c DateStyle=ISO -c statement_timeout=" +
        std::to_string(o.statement_timeout.count()) + "'");
    conn->prepare("claim", sql.claim);
    conn->prepare("finish", sql.finish);
    auto raw = [conn, n = 0L]() mutable {
        const std::string key = run_tag + ":raw:" + std::to_string(++n), owner = make_owner_token();
        const auto t = times_now();
        pqxx::nontransaction tx(*conn);
        const auto row = tx.exec_prepared("claim", key, owner, "", t.at, t.until);
        if (row.size() != 1 || row[0][0].as<long>() != 1 || row[0][1].is_null())
            throw std::runtime_error("raw claim: unexpected answer");
        if (tx.exec_prepared("finish", "done", format_timestamp(system_clock::instance().now()), "", key, owner)
                .affected_rows() != 1)
            throw std::runtime_error("raw finish");
    };
    bench::cycle_fn drop_hand_table;
    auto hand = bench::hand_written_postgres("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database +
                                                 " user=" + o.user + " password=" + o.password.value_or(""),
                                             run_tag + ":hand:", drop_hand_table);
    measure("PostgreSQL", {{"store", store_cycle(*store)},
                           {"raw own statements (libpqxx)", raw},
                           {"hand-written INSERT+UPDATE libpq", hand}});
    store->purge(std::chrono::milliseconds{0});  // this run's records (all done) and earlier runs' in bench_claims
    drop_hand_table();
}
#endif

#ifdef CLAIM_BENCH_MYSQL
/// The MariaDB C API session of the raw floor: the store's claim and finish, prepared once.
struct raw_mysql_claims {
    MYSQL* db = nullptr;
    MYSQL_STMT* claim = nullptr;
    MYSQL_STMT* finish = nullptr;
    MYSQL_STMT* find = nullptr;
    raw_mysql_claims() = default;
    raw_mysql_claims(const raw_mysql_claims&) = delete;
    raw_mysql_claims& operator=(const raw_mysql_claims&) = delete;
    ~raw_mysql_claims() {
        if (claim) mysql_stmt_close(claim);
        if (finish) mysql_stmt_close(finish);
        if (find) mysql_stmt_close(find);
        if (db) mysql_close(db);
    }
    /// Executes one statement with text parameters; returns the affected rows.
    long long run(MYSQL_STMT* stmt, const std::vector<std::string>& values) {
        MYSQL_BIND binds[8];
        unsigned long lengths[8];
        std::memset(binds, 0, sizeof binds);
        for (std::size_t i = 0; i < values.size(); ++i) {
            lengths[i] = values[i].size();
            binds[i].buffer_type = MYSQL_TYPE_STRING;
            binds[i].buffer = const_cast<char*>(values[i].data());
            binds[i].buffer_length = lengths[i];
            binds[i].length = &lengths[i];
        }
        if (mysql_stmt_bind_param(stmt, binds) || mysql_stmt_execute(stmt))
            throw std::runtime_error(mysql_stmt_error(stmt));
        return static_cast<long long>(mysql_stmt_affected_rows(stmt));
    }
};

void bench_mysql(const char* uri) {
    const auto options = server_store_options<providers::mysql_run_options>(uri);
    const auto& o = options.server;
    std::printf("MySQL/MariaDB %s\n", o.redacted_uri().c_str());
    auto store = providers::make_mysql_idempotency_store(options);
    const auto sql = providers::make_mysql_dialect()->claim_set(providers::sql::table_name(options.table))->text();
    auto raw = std::make_shared<raw_mysql_claims>();
    raw->db = mysql_init(nullptr);
    mysql_optionsv(raw->db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    const std::string session = "SET time_zone = '+00:00', max_statement_time = " +
                                std::to_string(std::chrono::duration<double>(o.statement_timeout).count());
    if (!mysql_real_connect(raw->db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                            o.database.c_str(), o.port, nullptr, 0) ||
        mysql_query(raw->db, session.c_str()))
        throw std::runtime_error(mysql_error(raw->db));
    raw->claim = mysql_stmt_init(raw->db);
    raw->finish = mysql_stmt_init(raw->db);
    raw->find = mysql_stmt_init(raw->db);
    if (mysql_stmt_prepare(raw->claim, sql.claim.c_str(), sql.claim.size()) ||
        mysql_stmt_prepare(raw->finish, sql.finish.c_str(), sql.finish.size()) ||
        mysql_stmt_prepare(raw->find, sql.find.c_str(), sql.find.size()))
        throw std::runtime_error(mysql_error(raw->db));
    // read_back: what the store did until it read 1 affected row as "new", the record read back
    // after every claim (a third round trip); kept as a reference for the cost of that read.
    const auto raw_cycle = [raw](const std::string& tag, bool read_back) {
        return [raw, tag, read_back, n = 0L]() mutable {
            const std::string key = run_tag + tag + std::to_string(++n), owner = make_owner_token();
            const auto t = times_now();
            if (raw->run(raw->claim, {key, owner, "", t.at, t.until}) != 1)
                throw std::runtime_error("raw claim: not new");
            if (read_back) {
                raw->run(raw->find, {key});
                if (mysql_stmt_store_result(raw->find) || mysql_stmt_num_rows(raw->find) != 1)
                    throw std::runtime_error("raw read-back");
                mysql_stmt_free_result(raw->find);
            }
            if (raw->run(raw->finish, {"done", format_timestamp(system_clock::instance().now()), "", key, owner}) != 1)
                throw std::runtime_error("raw finish");
        };
    };
    bench::cycle_fn drop_hand_table;
    auto hand = bench::hand_written_mysql(o.host, o.user, o.password.value_or(""), o.database, o.port,
                                          run_tag + ":hand:", drop_hand_table);
    measure("MySQL/MariaDB", {{"store", store_cycle(*store)},
                              {"raw own statements (MariaDB C API)", raw_cycle(":raw:", false)},
                              {"hand-written INSERT+UPDATE C API", hand},
                              {"raw claim + read-back + finish", raw_cycle(":readback:", true)}});
    store->purge(std::chrono::milliseconds{0});  // this run's records (all done) and earlier runs' in bench_claims
    drop_hand_table();
}
#endif

#ifdef CLAIM_BENCH_REDIS
void bench_redis(const char* uri) {
    using providers::detail::redis_script;
    auto options = providers::redis_options_from_uri(parse_provider_uri(uri));
    options.prefix = run_tag;
    options.pool_size = 1;
    std::printf("Redis %s:%d/%d, prefix %s\n", options.host.c_str(), options.port, options.db, options.prefix.c_str());
    auto store = providers::make_redis_idempotency_store(options);
    const auto c = bench::redis_connect(options);
    const std::string claim = bench::redis_load(c.get(), redis_script::claim),
                      finish = bench::redis_load(c.get(), redis_script::finish);
    const std::string base = run_tag + ":rawclaims:", index = base + "index";
    auto raw = [c, claim, finish, base, index, n = 0L]() mutable {
        const std::string key = "k" + std::to_string(++n), record = base + "{" + key + "}", owner = make_owner_token();
        const auto now = system_clock::instance().now();
        const std::string at = std::to_string(now.time_since_epoch().count()),
                          until = std::to_string((now + minutes{10}).time_since_epoch().count());
        auto* got = bench::redis_call(c.get(), {"EVALSHA", claim, "2", record, index, owner, "", at, until, key});
        const bool claimed = got->type == REDIS_REPLY_ARRAY && got->elements >= 3 &&
                             got->element[0]->type == REDIS_REPLY_STRING && std::string(got->element[0]->str) == "1";
        freeReplyObject(got);
        if (!claimed) throw std::runtime_error("raw claim: not claimed");
        const std::string done_at = std::to_string(system_clock::instance().now().time_since_epoch().count());
        auto* done = bench::redis_call(c.get(), {"EVALSHA", finish, "1", record, owner, "done", done_at, ""});
        const bool finished = done->integer > 0;
        freeReplyObject(done);
        if (!finished) throw std::runtime_error("raw finish");
    };
    // The hand-written floor: SET NX PX claims a new key, SET XX PX marks it done (no owner check:
    // that needs a script, which is the store's own floor above).
    auto hand = [c, base, n = 0L]() mutable {
        const std::string record = base + "hand:" + std::to_string(++n);
        auto* claimed = bench::redis_call(c.get(), {"SET", record, make_owner_token(), "NX", "PX", "600000"});
        const bool ok = claimed->type == REDIS_REPLY_STATUS;
        freeReplyObject(claimed);
        auto* done = bench::redis_call(c.get(), {"SET", record, "done", "XX", "PX", "600000"});
        const bool finished = done->type == REDIS_REPLY_STATUS;
        freeReplyObject(done);
        if (!ok || !finished) throw std::runtime_error("hand-written redis cycle");
    };
    measure("Redis", {{"store", store_cycle(*store)},
                      {"raw own scripts (hiredis EVALSHA)", raw},
                      {"hand-written SET NX + SET XX", hand}});
    // Remove this run's keys (all under the run's prefix).
    std::string cursor = "0";
    do {
        auto* page = bench::redis_call(c.get(), {"SCAN", cursor, "MATCH", run_tag + ":*", "COUNT", "1000"});
        cursor.assign(page->element[0]->str, page->element[0]->len);
        for (std::size_t i = 0; i < page->element[1]->elements; ++i) {
            const auto* k = page->element[1]->element[i];
            freeReplyObject(bench::redis_call(c.get(), {"UNLINK", std::string(k->str, k->len)}));
        }
        freeReplyObject(page);
    } while (cursor != "0");
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) slices = std::atoi(argv[1]);
    if (argc > 2) slice_length = std::chrono::duration<double>{std::atof(argv[2])};
    if (argc > 3) burst = std::atol(argv[3]);
    if (argc > 4) backends = argv[4];
    bench::print_load("at start");
    try {
#ifdef CLAIM_BENCH_SQLITE
        if (wanted("sqlite")) bench_sqlite();
#endif
#ifdef CLAIM_BENCH_POSTGRES
        if (const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI"); uri && wanted("postgres")) bench_postgres(uri);
#endif
#ifdef CLAIM_BENCH_MYSQL
        if (const char* uri = std::getenv("SHEDLOCK_TEST_MYSQL_URI"); uri && wanted("mysql")) bench_mysql(uri);
#endif
#ifdef CLAIM_BENCH_REDIS
        if (const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI"); uri && wanted("redis")) bench_redis(uri);
#endif
    } catch (const std::exception& e) {
        std::fprintf(stderr, "claim_cycles: %s\n", e.what());
        return 1;
    }
    bench::print_load("at end");
    return 0;
}
