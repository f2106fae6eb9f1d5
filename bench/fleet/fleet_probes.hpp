#pragma once
// What the bench reads from the server around each firing: the CPU time of the server processes
// that served the fleet (PostgreSQL: the backends of the instances' connections, or of
// PgBouncer's; Redis: redis-server), the connections, statement counts, WAL and memory.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::bench::fleet {

/// Read while the instances are connected.
struct live_figures {
    std::map<int, std::int64_t> server_cpu_ns;  ///< per server process that served the instances
    std::int64_t pooler_cpu_ns = 0;             ///< PgBouncer's own CPU (0 without a pooler)
    int server_connections = 0;                 ///< PostgreSQL backends / Redis clients of the fleet
    int client_connections = 0;                 ///< the instances' sockets to what they connect to
};

/// Server-wide counters (others' traffic on a shared server included).
struct counter_figures {
    double statements = 0;    ///< PostgreSQL: transactions of the database; Redis: commands (commandstats)
    double rows_written = 0;  ///< PostgreSQL: rows inserted + updated in the fleet's table
    double table_scans = 0;   ///< PostgreSQL: index + sequential scans of the fleet's table (its statements)
    double wal_bytes = 0;     ///< PostgreSQL: pg_current_wal_lsn
    double memory_bytes = 0;  ///< Redis: used_memory
    bool settled = true;      ///< false: statistics still lagged when the wait gave up
};

class server_probe {
public:
    virtual ~server_probe() = default;
    /// The server processes serving the instances `workers` and their CPU time so far.
    virtual live_figures live(const std::vector<int>& workers) = 0;
    virtual counter_figures counters() = 0;
    /// The counters once they include every statement of the firing: PostgreSQL backends publish
    /// their statistics when idle (at most once a second), not at each statement. Waits (polling,
    /// up to 20 s) until `expected_statements` more scans of the fleet's table than `before` are
    /// counted.
    virtual counter_figures settled(const counter_figures& before, double expected_statements, const live_figures& last) = 0;
    /// The server's version, one line.
    virtual std::string version() = 0;
};

/// PostgreSQL, read over its own direct connection (`direct_uri`); `pooled_port` > 0: the
/// instances connect through the PgBouncer listening there.
std::unique_ptr<server_probe> make_postgres_probe(const std::string& direct_uri, int pooled_port);
std::unique_ptr<server_probe> make_redis_probe(const std::string& uri);

/// MEMORY USAGE of the lock key and the fence key of lock `name` (held), in bytes.
double redis_memory_per_lock(const std::string& uri, const std::string& prefix, const std::string& name);

}  // namespace shedlock::bench::fleet
