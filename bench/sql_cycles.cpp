// Acquire+unlock cycles per second of the SQL providers next to the raw floor: the very same two
// statements (same SQL text, prepared, same parameters) issued directly through libpqxx or the
// MariaDB C API on one connection with the same session settings, in the same run. One thread,
// one lock name, sequential cycles. The machine may be shared: variants run in alternating slices.
//
//   SHEDLOCK_TEST_POSTGRES_URI=postgresql://... SHEDLOCK_TEST_MYSQL_URI=mysql://... sql_cycles [seconds]
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

namespace {

double seconds_per_run = 3.0;

/// Cycles per second of each of `cycles`, measured in alternating short slices (the machine is
/// shared and noisy: interleaving exposes every variant to the same background load); the best
/// slice of each counts.
std::vector<double> rates(const std::vector<std::function<void()>>& cycles) {
    constexpr int slices = 8;
    std::vector<double> best(cycles.size(), 0.0);
    for (const auto& cycle : cycles)
        for (int i = 0; i < 50; ++i) cycle();  // warm-up: connect, prepare
    for (int slice = 0; slice < slices; ++slice) {
        for (std::size_t v = 0; v < cycles.size(); ++v) {
            long n = 0;
            const auto start = steady_clock::now();
            const auto end = start + duration<double>(seconds_per_run / slices);
            while (steady_clock::now() < end) {
                cycles[v]();
                ++n;
            }
            best[v] = std::max(best[v], n / duration<double>(steady_clock::now() - start).count());
        }
    }
    return best;
}

void provider_cycle(sql::sql_lock_provider& provider, const std::string& name) {
    auto held = provider.try_lock({name, seconds{60}});
    if (!held) throw std::runtime_error("benchmark lock " + name + " was not acquired");
    held->unlock();
}

/// `ratio` = time per cycle through the provider / time per cycle of the raw floor.
void report(const char* what, double cycles, double floor) {
    std::printf("  %-40s %7.0f cycles/s | raw floor %7.0f cycles/s | ratio %.3f\n", what, cycles, floor, floor / cycles);
}

#ifdef SHEDLOCK_BENCH_POSTGRES
std::function<void()> raw_postgres(const providers::postgres_options& o, bool async) {
    auto conn = std::make_shared<pqxx::connection>("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database + " user=" +
                       o.user + " password=" + o.password.value_or("") + " options='-c DateStyle=ISO'");
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
    sync_provider->delete_records({"bench-raw-sync", "bench-raw-async", "bench-sync", "bench-async"});
    const auto r = rates({raw_postgres(o, false), [&] { provider_cycle(*sync_provider, "bench-sync"); },
                          raw_postgres(o, true), [&] { provider_cycle(*async_provider, "bench-async"); }});
    const double sync_floor = r[0], sync = r[1], async_floor = r[2], async = r[3];
    report("provider, synchronous unlock", sync, sync_floor);
    report("provider, asynchronous unlock (default)", async, async_floor);
    std::printf("  async provider vs synchronous two-statement floor: %.2fx the cycles/s\n", async / sync_floor);
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

std::function<void()> raw_mysql(const providers::mysql_options& o) {
    auto session = std::make_shared<raw_mysql_session>();
    MYSQL* db = session->db = mysql_init(nullptr);
    if (!mysql_real_connect(db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                            o.database.c_str(), o.port, nullptr, 0) ||
        mysql_query(db, "SET time_zone = '+00:00', max_statement_time = 5"))
        throw std::runtime_error(mysql_error(db));
    const auto dialect = providers::make_mysql_dialect();
    const sql::table_name table(o.table);
    const std::string acquire = dialect->acquire(table, {}).sql, unlock = dialect->unlock(table, {}).sql;
    MYSQL_STMT* acq = session->acquire = mysql_stmt_init(db);
    MYSQL_STMT* unl = session->unlock = mysql_stmt_init(db);
    if (mysql_stmt_prepare(acq, acquire.c_str(), acquire.size()) || mysql_stmt_prepare(unl, unlock.c_str(), unlock.size()))
        throw std::runtime_error(mysql_error(db));
    return [session] {
        const auto now = shedlock::system_clock::instance().now();
        if (run_stmt(session->acquire, {"bench-raw", format_timestamp(now + seconds{60}), format_timestamp(now),
                                        "bench:raw"}) <= 0)
            throw std::runtime_error("raw acquire failed");
        run_stmt(session->unlock, {format_timestamp(now), "bench-raw", "bench:raw", format_timestamp(now)});
    };
}

void bench_mysql(const char* uri) {
    auto o = providers::mysql_options::from_uri(parse_provider_uri(uri));
    o.table = "bench_cycles";
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    std::printf("MySQL/MariaDB %s\n", o.redacted_uri().c_str());
    auto provider = providers::make_mysql_lock_provider(o);
    provider->delete_records({"bench-raw", "bench"});  // a failed run's locks stay held for a minute
    const auto r = rates({raw_mysql(o), [&] { provider_cycle(*provider, "bench"); }});
    report("provider", r[1], r[0]);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) seconds_per_run = std::atof(argv[1]);
    int ran = 0;
    try {
#ifdef SHEDLOCK_BENCH_POSTGRES
        if (const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI")) bench_postgres(uri), ++ran;
#endif
#ifdef SHEDLOCK_BENCH_MYSQL
        if (const char* uri = std::getenv("SHEDLOCK_TEST_MYSQL_URI")) bench_mysql(uri), ++ran;
#endif
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sql_cycles: %s\n", e.what());
        return 1;
    }
    if (ran == 0) std::fprintf(stderr, "sql_cycles: set SHEDLOCK_TEST_POSTGRES_URI and/or SHEDLOCK_TEST_MYSQL_URI\n");
    return ran == 0 ? 2 : 0;
}
