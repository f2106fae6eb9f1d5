// PostgreSQL's side of a firing. The fleet's backends are found by the client ports of the
// instances' sockets (pg_stat_activity.client_port), or of PgBouncer's server connections when
// the instances go through it, so other sessions on a shared server are not counted as ours.
#include "fleet_deciders.hpp"
#include "fleet_probes.hpp"
#include "fleet_proc.hpp"

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <libpq-fe.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace shedlock::bench::fleet {

namespace {

class postgres_probe : public server_probe {
public:
    postgres_probe(const std::string& direct_uri, int pooled_port) : pooled_port_(pooled_port) {
        const auto o = providers::postgres_options::from_uri(parse_provider_uri(direct_uri));
        server_port_ = o.port;
        conn_ = PQconnectdb(("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database +
                             " user=" + o.user + " password=" + o.password.value_or(""))
                                .c_str());
        if (PQstatus(conn_) != CONNECTION_OK) throw std::runtime_error(std::string("probe: ") + PQerrorMessage(conn_));
        if (pooled_port_ > 0) pooler_pid_ = pid_listening_on(pooled_port_);
    }
    ~postgres_probe() override { PQfinish(conn_); }

    live_figures live(const std::vector<int>& workers) override {
        live_figures f;
        const auto ports = pooler_pid_ > 0 ? client_ports({pooler_pid_}, server_port_) : client_ports(workers, server_port_);
        const auto rows = query("SELECT pid, client_port FROM pg_stat_activity WHERE client_port IS NOT NULL");
        for (const auto& row : rows)
            if (ports.count(std::stoi(row[1]))) {
                const std::int64_t cpu = process_cpu_ns(std::stoi(row[0]));
                if (cpu >= 0) f.server_cpu_ns[std::stoi(row[0])] = cpu;
            }
        f.server_connections = static_cast<int>(f.server_cpu_ns.size());
        f.client_connections = static_cast<int>(client_ports(workers, pooled_port_ > 0 ? pooled_port_ : server_port_).size());
        if (pooler_pid_ > 0) f.pooler_cpu_ns = process_cpu_ns(pooler_pid_);
        return f;
    }

    counter_figures counters() override {
        const auto rows = query(std::string("SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = "
                                            "current_database()), COALESCE(sum(n_tup_ins + n_tup_upd), 0), COALESCE(sum(COALESCE(idx_scan, 0) + seq_scan), 0), "
                                            "pg_current_wal_lsn() - '0/0'::pg_lsn FROM pg_stat_user_tables WHERE relname = '") +
                                fleet_table + "'");
        counter_figures c;
        c.statements = std::stod(rows.at(0)[0]);
        c.rows_written = std::stod(rows.at(0)[1]);
        c.table_scans = std::stod(rows.at(0)[2]);
        c.wal_bytes = std::stod(rows.at(0)[3]);
        return c;
    }

    counter_figures settled(const counter_figures& before, double expected_statements, const live_figures&) override {
        // A backend publishes at most once a second: the counts are final once they reached what
        // the firing sent and then stayed the same for longer than that.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
        counter_figures last_read = counters();
        auto unchanged_since = std::chrono::steady_clock::now();
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds{100});  // polling the statistics views
            counter_figures now = counters();
            const auto at = std::chrono::steady_clock::now();
            if (now.table_scans != last_read.table_scans || now.rows_written != last_read.rows_written) unchanged_since = at;
            last_read = now;
            const bool reached = now.table_scans - before.table_scans >= expected_statements;
            if (reached && at - unchanged_since > std::chrono::milliseconds{1200}) return now;
            if (at > deadline) return now.settled = false, now;
        }
    }

    std::string version() override { return query("SELECT version()").at(0).at(0); }

private:
    std::vector<std::vector<std::string>> query(const std::string& sql) {
        PGresult* r = PQexec(conn_, sql.c_str());
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            const std::string message = PQresultErrorMessage(r);
            PQclear(r);
            throw std::runtime_error("probe: " + message);
        }
        std::vector<std::vector<std::string>> rows(static_cast<std::size_t>(PQntuples(r)));
        for (int i = 0; i < PQntuples(r); ++i)
            for (int j = 0; j < PQnfields(r); ++j) rows[static_cast<std::size_t>(i)].push_back(PQgetvalue(r, i, j));
        PQclear(r);
        return rows;
    }

    PGconn* conn_ = nullptr;
    int server_port_ = 0, pooled_port_ = 0, pooler_pid_ = -1;
};

}  // namespace

std::unique_ptr<server_probe> make_postgres_probe(const std::string& direct_uri, int pooled_port) {
    return std::make_unique<postgres_probe>(direct_uri, pooled_port);
}

}  // namespace shedlock::bench::fleet
