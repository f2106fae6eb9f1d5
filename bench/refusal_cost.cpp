#include "refusal_cost.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/time.hpp>

#include <pqxx/pqxx>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace shedlock::bench {
namespace {

namespace sql = providers::sql;
using std::chrono::seconds;

std::string conninfo(const providers::postgres_options& o) {
    return "host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database + " user=" + o.user +
           " password=" + o.password.value_or("") + " options='-c DateStyle=ISO'";
}

/// Java ShedLock's update (JdbcTemplateStorageAccessor, client time), as its JDBC driver sends it.
std::string java_update(const std::string& table) {
    return "UPDATE " + table +
           " SET lock_until = $1, locked_at = $2, locked_by = $3 WHERE name = $4 AND lock_until <= $5";
}

/// Our acquire before the refusal rework (commit b214dbb, postgres_dialect.cpp), client time,
/// BIGINT fencing column: the epoch in a CTE joined by both halves, the INSERT's SELECT evaluated
/// (epoch included) on every refusal before ON CONFLICT finds the row.
std::string acquire_before_rework(const std::string& table) {
    const std::string t = "\"" + table + "\"";
    const std::string epoch = "(('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::bigint << 40)";
    const std::string returning = " RETURNING \"locked_at\", \"lock_until\", \"fencing_token\"";
    return "WITH e AS (SELECT " + epoch + " AS epoch), taken AS (UPDATE " + t +
           " SET \"lock_until\" = $2::timestamp(3), \"locked_at\" = $3::timestamp(3), \"locked_by\" = $4, "
           "\"fencing_token\" = GREATEST(" + t + ".\"fencing_token\" + 1, e.epoch + 1) FROM e WHERE \"name\" = $1 AND "
           "\"lock_until\" <= $3::timestamp(3)" + returning + "), created AS (INSERT INTO " + t +
           " (\"name\", \"lock_until\", \"locked_at\", \"locked_by\", \"fencing_token\") SELECT $1, $2::timestamp(3), "
           "$3::timestamp(3), $4, e.epoch + 1 FROM e WHERE NOT EXISTS (SELECT 1 FROM taken) ON CONFLICT (\"name\") DO "
           "NOTHING" + returning + ") SELECT * FROM taken UNION ALL SELECT * FROM created";
}

/// One way to attempt a lock, on a connection of its own: attempt(now, until) says if it took it.
struct variant {
    std::string name;
    int backend_pid = 0;
    std::function<bool(timestamp, timestamp)> attempt;
};

/// A raw libpqxx connection with `sql` prepared, on the record `name` (names and owners of one
/// length, so that rows, and the WAL of a takeover, weigh the same in every variant); java=true
/// binds Java's parameter order.
variant raw_variant(const std::string& label, const std::string& name, const providers::postgres_options& o,
                    const std::string& sql, bool java) {
    auto conn = std::make_shared<pqxx::connection>(conninfo(o));
    conn->prepare("attempt", sql);
    variant v{label, pqxx::nontransaction(*conn).exec1("SELECT pg_backend_pid()")[0].as<int>(), {}};
    const std::string owner = "bench:" + name;
    v.attempt = [conn, name, owner, java](timestamp now, timestamp until) {
        pqxx::nontransaction tx(*conn);
        const std::string at = format_timestamp(now), to = format_timestamp(until);
        if (java) return tx.exec_prepared("attempt", to, at, owner, name, at).affected_rows() == 1;
        return !tx.exec_prepared("attempt", name, to, at, owner).empty();
    };
    return v;
}

/// The provider's own attempt (system clock): its backend is the one that ran its UPDATE last.
variant provider_variant(const providers::postgres_options& o, pqxx::connection& monitor, const std::vector<variant>& raw) {
    auto o1 = o;
    o1.pool_size = 1;
    std::shared_ptr<sql::sql_lock_provider> provider = providers::make_postgres_lock_provider(o1);
    const lock_configuration config{"record-5", std::chrono::hours{24}};
    for (int i = 0; i < 20; ++i)
        if (provider->try_lock(config)) throw std::runtime_error("refusal_cost: the provider took a held lock");
    std::string others = "0";
    for (const auto& v : raw) others += ", " + std::to_string(v.backend_pid);
    const auto rows = pqxx::nontransaction(monitor).exec(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid NOT IN (" +
        others + ") AND query LIKE 'UPDATE \"" + o.table + "\"%'");
    if (rows.size() != 1) throw std::runtime_error("refusal_cost: cannot tell the provider's backend");
    variant v{"provider (refusal path)", rows[0][0].as<int>(), {}};
    v.attempt = [provider, config](timestamp, timestamp) { return provider->try_lock(config).has_value(); };
    return v;
}

long long wal_lsn(pqxx::connection& monitor) {
    return pqxx::nontransaction(monitor).exec1("SELECT pg_current_wal_lsn() - '0/0'")[0].as<long long>();
}

/// Runs `variants` in `slices` slices of `attempts` each. Within a slice the variants take turns
/// in bursts of `burst` attempts (the order reversed every other turn), each burst's backend CPU
/// and WAL read before and after it, so every variant meets the same background load. `next_now`
/// gives each attempt's time; every attempt must answer `expect`.
std::vector<attempt_cost> measure(std::vector<variant>& variants, pqxx::connection& monitor, int slices, long attempts,
                                  long burst, const std::function<timestamp()>& next_now,
                                  std::chrono::milliseconds lease, bool expect, int pace_us) {
    const std::size_t n = variants.size();
    std::vector<std::vector<double>> cpu(n), wal(n), ratio(n);
    for (int s = 0; s < slices; ++s) {
        std::vector<double> cpu_s(n, 0), wal_s(n, 0);
        for (long done = 0, turn = 0; done < attempts; done += burst, ++turn) {
            const long count = std::min(burst, attempts - done);
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t i = turn % 2 == 0 ? k : n - 1 - k;
                auto& v = variants[i];
                const double cpu0 = process_cpu_seconds(v.backend_pid);
                const long long wal0 = wal_lsn(monitor);
                for (long a = 0; a < count; ++a) {
                    const timestamp now = next_now();
                    if (v.attempt(now, now + lease) != expect)
                        throw std::runtime_error("refusal_cost: " + v.name + " answered other than expected");
                    if (pace_us > 0) std::this_thread::sleep_for(std::chrono::microseconds{pace_us});
                }
                wal_s[i] += static_cast<double>(wal_lsn(monitor) - wal0);
                cpu_s[i] += process_cpu_seconds(v.backend_pid) - cpu0;
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            cpu[i].push_back(cpu_s[i] * 1e6 / static_cast<double>(attempts));
            wal[i].push_back(wal_s[i] / static_cast<double>(attempts));
            ratio[i].push_back(cpu_s[i] / cpu_s[0]);
        }
    }
    std::vector<attempt_cost> costs;
    for (std::size_t i = 0; i < n; ++i)
        costs.push_back({variants[i].name, median_of(cpu[i]), median_of(wal[i]), median_of(ratio[i])});
    return costs;
}

void print_table(const char* title, const std::vector<attempt_cost>& costs) {
    std::printf("%s\n  %-26s %-24s %-22s %s\n", title, "variant", "backend CPU us/attempt", "CPU / java's",
                "WAL bytes/attempt");
    for (const auto& c : costs)
        std::printf("  %-26s %-24s %-22s %s\n", c.variant.c_str(), format(c.cpu_us, "%.1f").c_str(),
                    format(c.cpu_ratio, "%.2f").c_str(), format(c.wal_bytes, "%.1f").c_str());
}

}  // namespace

double process_cpu_seconds(int pid) {
    // /proc/<pid>/schedstat's first field is the time the process ran, in nanoseconds: the clock
    // ticks of /proc/<pid>/stat (10 ms) made a burst of 1,000 refusals (about 25 ms of backend
    // CPU) two or three ticks, and the ratios' ranges mostly that quantisation.
    std::ifstream sched("/proc/" + std::to_string(pid) + "/schedstat");
    if (double run_ns = 0; sched >> run_ns) return run_ns / 1e9;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) throw std::runtime_error("refusal_cost: /proc/" + std::to_string(pid) + "/stat unreadable");
    // Fields after the command name (which may hold spaces, in parentheses): state is field 3,
    // utime field 14, stime field 15.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int f = 3; f <= 15 && rest >> field; ++f) {
        if (f == 14) utime = std::stod(field);
        if (f == 15) stime = std::stod(field);
    }
    return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

refusal_cost_report measure_refusal_cost(const refusal_cost_options& options) {
    auto o = providers::postgres_options::from_uri(parse_provider_uri(options.uri));
    o.table = "bench_refusal_" + std::to_string(::getpid());
    o.create_schema_if_missing = true;
    (void)providers::make_postgres_lock_provider(o);  // the table, by our DDL (BIGINT fencing column)
    pqxx::connection monitor(conninfo(o));
    const auto dialect = providers::make_postgres_dialect(true);
    const sql::lock_table table{sql::table_name(o.table)};
    const sql::statement_options now_options{true, false, false, true};  // fencing, client time, wide column

    std::vector<variant> variants;
    variants.push_back(raw_variant("java", "record-1", o, java_update(o.table), true));
    variants.push_back(raw_variant("before (b214dbb)", "record-2", o, acquire_before_rework(o.table), false));
    variants.push_back(raw_variant("full statement now", "record-3", o, dialect->acquire(table, now_options).sql, false));
    variants.push_back(
        raw_variant("plain UPDATE now", "record-4", o, dialect->acquire_existing(table, now_options)->sql, false));
    for (int record = 1; record <= 5; ++record)  // held elsewhere for a day
        pqxx::nontransaction(monitor).exec_params(
            "INSERT INTO " + o.table + " VALUES ($1, now() AT TIME ZONE 'UTC' + interval '1 day', now() AT TIME ZONE "
            "'UTC', 'bench:holder', 0)", "record-" + std::to_string(record));
    variants.push_back(provider_variant(o, monitor, variants));

    refusal_cost_report report;
    const auto real_now = [] { return system_clock::instance().now(); };
    for (auto& v : variants)
        for (int i = 0; i < 200; ++i) (void)v.attempt(real_now(), real_now() + std::chrono::hours{24});  // warm-up
    report.refusals = measure(variants, monitor, options.slices, options.refusals, options.burst, real_now,
                              std::chrono::hours{24}, false, options.pace_us);

    // Takeovers: every attempt's "now" one second past the last lease (1 ms long), so each finds
    // its record expired; raw statements only (the provider sends the plain UPDATE's text).
    variants.pop_back();
    timestamp virtual_now = real_now() + std::chrono::hours{25};
    const auto next = [&] { return virtual_now += seconds{1}; };
    report.takeovers = measure(variants, monitor, options.slices, options.takeovers, options.burst / 10, next,
                               std::chrono::milliseconds{1}, true, options.pace_us);
    pqxx::nontransaction(monitor).exec("DROP TABLE " + o.table);
    return report;
}

void print(const refusal_cost_report& report) {
    print_table("Refused attempts (the record held elsewhere), median [min-max] over slices:", report.refusals);
    print_table("Takeovers of an expired record (each commits):", report.takeovers);
}

}  // namespace shedlock::bench
