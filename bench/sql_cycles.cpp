// Acquire+unlock cycles per second of the SQL providers next to two raw floors, in one run:
//
//   own SQL       the provider's very statements (same SQL text from its dialect, prepared, same
//                 parameters) issued directly through libpqxx or the MariaDB C API on one
//                 connection with the same session settings;
//   simplest SQL  the statements a user writes by hand, prepared once: PostgreSQL
//                 `INSERT ... ON CONFLICT (name) DO UPDATE ... WHERE lock_until <= now` and
//                 `UPDATE ... SET lock_until = now WHERE name = ? AND locked_by = ?`; MariaDB (no
//                 ON CONFLICT) `UPDATE ... WHERE name = ? AND lock_until <= now` on a row created
//                 once, as Java ShedLock does once a lock's row exists, and the same unlock.
//
// One thread, one lock name per variant, sequential cycles. Each slice interleaves the variants
// in bursts of `burst` cycles, the order reversed every other turn, so background load hits all
// of them alike (bench_stats.hpp). Reported: medians over the slices with [min-max] of cycles/s
// and CPU us/cycle, and the per-slice ratios provider time / floor time; never the best slice.
//
// With SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI and/or ..._SESSION_URI set too (PgBouncers in
// front of the same server, providers/postgres/server.sh starts them), a second PostgreSQL
// table: the provider direct (pooler=none) against the provider direct on the pooled course
// (pooler=pgbouncer: statements bound first by their text's name, its own price without a
// pooler) and through each PgBouncer (pooler=auto: detected), and the provider through the
// transaction pooler against the raw floor through it: the provider's statements unnamed via
// libpqxx, what a hand-written client can run through PgBouncer 1.18's transaction pooling
// (named statements of its own clash there).
//
//   SHEDLOCK_TEST_POSTGRES_URI=postgresql://... SHEDLOCK_TEST_MYSQL_URI=mysql://...
//     sql_cycles [slices=10] [seconds_per_slice=0.5] [burst=20]
#include "bench_stats.hpp"

#include <shedlock/providers/sql/sql_lock_provider.hpp>

#ifdef SHEDLOCK_BENCH_POSTGRES
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <pqxx/pqxx>
#endif
#ifdef SHEDLOCK_BENCH_MYSQL
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <mysql.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace shedlock;
using namespace std::chrono;
namespace sql = shedlock::providers::sql;
using shedlock::system_clock;
namespace bench = shedlock::bench;

namespace {

int slices = 10;
duration<double> slice_length{0.5};
long burst = 20;

void provider_cycle(sql::sql_lock_provider& provider, const std::string& name) {
    auto held = provider.try_lock({name, seconds{60}});
    if (!held) throw std::runtime_error("benchmark lock " + name + " was not acquired");
    held->unlock();
}

/// Runs the variants in interleaved slices, prints rates and the ratios (candidate, floor).
void measure(const bench::variant_list& variants, const std::vector<std::pair<std::size_t, std::size_t>>& ratios) {
    for (const auto& v : variants)
        for (int i = 0; i < 50; ++i) v.second();  // warm-up: connect, prepare
    const auto results = bench::run_slices(variants, slices, slice_length, burst);
    bench::report_rates(variants, results);
    std::printf("  provider time / floor time, per slice (median [min-max]):\n");
    for (const auto& [candidate, floor] : ratios) bench::report_ratio(variants, results, candidate, floor);
}

#ifdef SHEDLOCK_BENCH_POSTGRES
std::shared_ptr<pqxx::connection> connect_postgres(const providers::postgres_options& o) {
    return std::make_shared<pqxx::connection>("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" +
                                              o.database + " user=" + o.user + " password=" +
                                              o.password.value_or("") + " options='-c DateStyle=ISO'");
}

/// Floor 1: the provider's own two statements, the same parameters, the RETURNING row checked.
std::function<void()> raw_postgres(const providers::postgres_options& o, bool async) {
    auto conn = connect_postgres(o);
    const auto dialect = providers::make_postgres_dialect(async);
    const sql::table_name table(o.table);
    conn->prepare("acquire", dialect->acquire(table, {}).sql);
    conn->prepare("unlock", dialect->unlock(table, {}).sql);
    const std::string name = async ? "bench-raw-async" : "bench-raw-sync", owner = "bench:raw";
    return [conn, name, owner] {
        const auto now = shedlock::system_clock::instance().now();
        pqxx::nontransaction tx(*conn);
        if (tx.exec_prepared("acquire", name, format_timestamp(now + seconds{60}), format_timestamp(now), owner).empty())
            throw std::runtime_error("raw acquire failed");
        tx.exec_prepared("unlock", format_timestamp(now), name, owner, format_timestamp(now));
    };
}

/// Floor 2: the upsert and the release a user writes by hand; success from the affected rows.
std::function<void()> simplest_postgres(const providers::postgres_options& o) {
    auto conn = connect_postgres(o);
    const std::string t = sql::table_name(o.table).qualified();
    conn->prepare("acquire", "INSERT INTO " + t + " (name, lock_until, locked_at, locked_by) VALUES ($1, $2, $3, $4) "
                  "ON CONFLICT (name) DO UPDATE SET lock_until = EXCLUDED.lock_until, locked_at = EXCLUDED.locked_at, "
                  "locked_by = EXCLUDED.locked_by WHERE " + t + ".lock_until <= EXCLUDED.locked_at");
    conn->prepare("unlock", "UPDATE " + t + " SET lock_until = $1 WHERE name = $2 AND locked_by = $3");
    return [conn] {
        const auto now = shedlock::system_clock::instance().now();
        const std::string at = format_timestamp(now);
        pqxx::nontransaction tx(*conn);
        if (tx.exec_prepared("acquire", "bench-simplest", format_timestamp(now + seconds{60}), at, "bench:simplest")
                .affected_rows() != 1)
            throw std::runtime_error("simplest acquire failed");
        if (tx.exec_prepared("unlock", at, "bench-simplest", "bench:simplest").affected_rows() != 1)
            throw std::runtime_error("simplest unlock failed");
    };
}

/// The raw floor a pooled user writes: the provider's statements, unnamed (exec_params), no
/// libpq options (a pooler refuses them).
std::function<void()> raw_postgres_unnamed(const providers::postgres_options& o) {
    auto conn = std::make_shared<pqxx::connection>("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" +
                                                   o.database + " user=" + o.user + " password=" + o.password.value_or(""));
    const auto dialect = providers::make_postgres_dialect(true);
    const sql::table_name table(o.table);
    const std::string acquire = dialect->acquire(table, {}).sql, unlock = dialect->unlock(table, {}).sql;
    return [conn, acquire, unlock] {
        const auto now = shedlock::system_clock::instance().now();
        pqxx::nontransaction tx(*conn);
        if (tx.exec_params(acquire, "bench-raw-pooled", format_timestamp(now + seconds{60}), format_timestamp(now),
                           "bench:raw")
                .empty())
            throw std::runtime_error("raw pooled acquire failed");
        tx.exec_params(unlock, format_timestamp(now), "bench-raw-pooled", "bench:raw", format_timestamp(now));
    };
}

providers::postgres_options bench_options(const char* uri) {
    auto o = providers::postgres_options::from_uri(parse_provider_uri(uri));
    o.table = "bench_cycles";
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    return o;
}

/// Direct against through PgBouncer: the same server, table and statements.
void bench_postgres_pooled(const char* direct_uri) {
    const char* transaction = std::getenv("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI");
    const char* session = std::getenv("SHEDLOCK_TEST_PGBOUNCER_SESSION_URI");
    if (!transaction && !session) return;
    auto direct_options = bench_options(direct_uri);
    direct_options.pooler = providers::postgres_options::pooler_kind::none;
    auto direct = providers::make_postgres_lock_provider(direct_options);
    // The pooled course's own price, without a pooler: every statement bound first.
    direct_options.pooler = providers::postgres_options::pooler_kind::pgbouncer;
    auto direct_pooled_course = providers::make_postgres_lock_provider(direct_options);
    inspect(*direct).delete_records(
        {"bench-direct", "bench-direct-pooled", "bench-pooled-tx", "bench-pooled-session", "bench-raw-pooled"});
    bench::variant_list variants{
        {"provider direct (pooler=none)", [&] { provider_cycle(*direct, "bench-direct"); }},
        {"provider direct, pooled course (pooler=pgbouncer)", [&] { provider_cycle(*direct_pooled_course, "bench-direct-pooled"); }}};
    std::vector<std::pair<std::size_t, std::size_t>> ratios{{1, 0}};
    std::unique_ptr<sql::sql_lock_provider> via_transaction, via_session;
    if (transaction) {
        via_transaction = providers::make_postgres_lock_provider(bench_options(transaction));
        variants.push_back({"provider via PgBouncer, transaction pooling", [&] { provider_cycle(*via_transaction, "bench-pooled-tx"); }});
        variants.push_back({"raw own SQL unnamed via PgBouncer, transaction", raw_postgres_unnamed(bench_options(transaction))});
        ratios.push_back({2, 0});
        ratios.push_back({2, 3});
    }
    if (session) {
        via_session = providers::make_postgres_lock_provider(bench_options(session));
        variants.push_back({"provider via PgBouncer, session pooling", [&] { provider_cycle(*via_session, "bench-pooled-session"); }});
        ratios.push_back({variants.size() - 1, 0});
    }
    std::printf("PostgreSQL direct against through PgBouncer\n");
    measure(variants, ratios);
}

void bench_postgres(const char* uri) {
    auto o = providers::postgres_options::from_uri(parse_provider_uri(uri));
    o.table = "bench_cycles";
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    std::printf("PostgreSQL %s\n", o.redacted_uri().c_str());
    o.async_unlock = false;
    auto sync_provider = providers::make_postgres_lock_provider(o);
    o.async_unlock = true;
    auto async_provider = providers::make_postgres_lock_provider(o);
    // A run that failed half-way leaves its locks held for a minute: start from no records.
    inspect(*sync_provider).delete_records({"bench-raw-sync", "bench-raw-async", "bench-sync", "bench-async", "bench-simplest"});
    measure({{"provider, sync unlock", [&] { provider_cycle(*sync_provider, "bench-sync"); }},
             {"raw own SQL, sync unlock", raw_postgres(o, false)},
             {"provider, async unlock (default)", [&] { provider_cycle(*async_provider, "bench-async"); }},
             {"raw own SQL, async unlock", raw_postgres(o, true)},
             {"raw simplest SQL", simplest_postgres(o)}},
            {{0, 1}, {0, 4}, {2, 3}, {2, 4}});
}
#endif

#ifdef SHEDLOCK_BENCH_MYSQL
/// Executes one prepared statement with text parameters; returns affected rows.
long long run_stmt(MYSQL_STMT* stmt, const std::vector<std::string>& values) {
    std::vector<MYSQL_BIND> binds(values.size());
    std::vector<unsigned long> lengths(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::memset(&binds[i], 0, sizeof(MYSQL_BIND));
        lengths[i] = values[i].size();
        binds[i].buffer_type = MYSQL_TYPE_STRING;
        binds[i].buffer = const_cast<char*>(values[i].data());
        binds[i].buffer_length = lengths[i];
        binds[i].length = &lengths[i];
    }
    if (mysql_stmt_bind_param(stmt, binds.data()) || mysql_stmt_execute(stmt))
        throw std::runtime_error(mysql_stmt_error(stmt));
    return static_cast<long long>(mysql_stmt_affected_rows(stmt));
}

/// The MariaDB C API session of the raw floor.
struct raw_mysql_session {
    MYSQL* db = nullptr;
    MYSQL_STMT* acquire = nullptr;
    MYSQL_STMT* unlock = nullptr;
    ~raw_mysql_session() {
        if (acquire) mysql_stmt_close(acquire);
        if (unlock) mysql_stmt_close(unlock);
        if (db) mysql_close(db);
    }
};

std::shared_ptr<raw_mysql_session> connect_mysql(const providers::mysql_options& o, const std::string& acquire,
                                                 const std::string& unlock) {
    auto session = std::make_shared<raw_mysql_session>();
    MYSQL* db = session->db = mysql_init(nullptr);
    if (!mysql_real_connect(db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                            o.database.c_str(), o.port, nullptr, 0) ||
        mysql_query(db, "SET time_zone = '+00:00', max_statement_time = 5"))
        throw std::runtime_error(mysql_error(db));
    MYSQL_STMT* acq = session->acquire = mysql_stmt_init(db);
    MYSQL_STMT* unl = session->unlock = mysql_stmt_init(db);
    if (mysql_stmt_prepare(acq, acquire.c_str(), acquire.size()) || mysql_stmt_prepare(unl, unlock.c_str(), unlock.size()))
        throw std::runtime_error(mysql_error(db));
    return session;
}

/// Floor 1: the provider's own two statements and parameters.
std::function<void()> raw_mysql(const providers::mysql_options& o) {
    const auto dialect = providers::make_mysql_dialect();
    const sql::table_name table(o.table);
    auto session = connect_mysql(o, dialect->acquire(table, {}).sql, dialect->unlock(table, {}).sql);
    return [session] {
        const auto now = shedlock::system_clock::instance().now();
        if (run_stmt(session->acquire, {"bench-raw", format_timestamp(now + seconds{60}), format_timestamp(now),
                                        "bench:raw"}) <= 0)
            throw std::runtime_error("raw acquire failed");
        run_stmt(session->unlock, {format_timestamp(now), "bench-raw", "bench:raw", format_timestamp(now)});
    };
}

/// Floor 2: a plain UPDATE to take the row (created once beforehand) and one to release it.
std::function<void()> simplest_mysql(const providers::mysql_options& o) {
    const std::string t = sql::table_name(o.table).qualified();
    auto session = connect_mysql(o,
                                 "UPDATE " + t + " SET lock_until = ?, locked_at = ?, locked_by = ? "
                                 "WHERE name = ? AND lock_until <= ?",
                                 "UPDATE " + t + " SET lock_until = ? WHERE name = ? AND locked_by = ?");
    const std::string create = "INSERT IGNORE INTO " + t +
                               " (name, lock_until, locked_at, locked_by) VALUES ('bench-simplest', "
                               "'2000-01-01 00:00:00', '2000-01-01 00:00:00', '')";
    if (mysql_query(session->db, create.c_str())) throw std::runtime_error(mysql_error(session->db));
    return [session] {
        const auto now = shedlock::system_clock::instance().now();
        const std::string at = format_timestamp(now);
        if (run_stmt(session->acquire, {format_timestamp(now + seconds{60}), at, "bench:simplest", "bench-simplest", at}) != 1)
            throw std::runtime_error("simplest acquire failed");
        if (run_stmt(session->unlock, {at, "bench-simplest", "bench:simplest"}) != 1)
            throw std::runtime_error("simplest unlock failed");
    };
}

void bench_mysql(const char* uri) {
    auto o = providers::mysql_options::from_uri(parse_provider_uri(uri));
    o.table = "bench_cycles";
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    std::printf("MySQL/MariaDB %s\n", o.redacted_uri().c_str());
    auto provider = providers::make_mysql_lock_provider(o);
    inspect(*provider).delete_records({"bench-raw", "bench", "bench-simplest"});  // a failed run's locks stay held for a minute
    measure({{"provider", [&] { provider_cycle(*provider, "bench"); }},
             {"raw own SQL", raw_mysql(o)},
             {"raw simplest SQL", simplest_mysql(o)}},
            {{0, 1}, {0, 2}});
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) slices = std::atoi(argv[1]);
    if (argc > 2) slice_length = duration<double>{std::atof(argv[2])};
    if (argc > 3) burst = std::atol(argv[3]);
    bench::print_load("at start");
    int ran = 0;
    try {
#ifdef SHEDLOCK_BENCH_POSTGRES
        if (const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI")) bench_postgres(uri), bench_postgres_pooled(uri), ++ran;
#endif
#ifdef SHEDLOCK_BENCH_MYSQL
        if (const char* uri = std::getenv("SHEDLOCK_TEST_MYSQL_URI")) bench_mysql(uri), ++ran;
#endif
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sql_cycles: %s\n", e.what());
        return 1;
    }
    bench::print_load("at end");
    if (ran == 0) std::fprintf(stderr, "sql_cycles: set SHEDLOCK_TEST_POSTGRES_URI and/or SHEDLOCK_TEST_MYSQL_URI\n");
    return ran == 0 ? 2 : 0;
}
