// What `shedlock doctor` hears of a PostgreSQL connection's topology: the pooler the connection
// probe found, and what the server says of its replication (issue 24).
#include "postgres_connection.hpp"
#include "postgres_servers.hpp"

namespace shedlock::providers::detail {
namespace {

constexpr const char* replication_sql =
    "SELECT pg_is_in_recovery(), current_setting('statement_timeout'), current_setting('synchronous_standby_names'), "
    "current_setting('synchronous_commit'), (SELECT count(*) FROM pg_stat_replication)";

std::string setting_at(const sql::sql_result& r, std::size_t column) {
    if (r.rows.empty() || r.rows[0].size() <= column || !r.rows[0][column]) return {};
    return *r.rows[0][column];
}

topology_note replication_note(const std::string& replicas, const std::string& standby_names, const std::string& commit) {
    if (replicas == "0" || replicas.empty())
        return {"replication: no streaming replica connected to this server (a failover would start from a backup)"};
    if (standby_names.empty())
        return {"replication: " + replicas +
                    " streaming replica(s), asynchronous: a failover can lose acquisitions, so two holders can "
                    "overlap (fencing tokens stay unique); synchronous_standby_names and synchronous_commit = "
                    "remote_apply prevent it",
                true};
    const bool applied = commit == "remote_apply";
    return {"replication: " + replicas + " streaming replica(s), synchronous (synchronous_standby_names = '" +
                standby_names + "', synchronous_commit = " + commit + ")" +
                (applied ? "" : "; remote_apply also makes a promoted standby see every acquisition at once"),
            !applied && commit != "on" && commit != "remote_write"};
}

}  // namespace

topology_note postgres_connection::servers_note() {
    const std::string reached = std::string(connection_->hostname()) + ":" + connection_->port();
    const std::string text = "servers: " + std::to_string(servers_) + " in the URI, target_session_attrs=" +
                             libpq_target_name(target_) + "; this connection reached " + reached;
    if (target_ != postgres_options::session_target::any) return {text};
    return {text + ". Under any, a standby that accepts first is kept and every lock call fails there until the "
                   "connection is replaced; use target_session_attrs=read-write (the default with several servers)",
            true};
}

std::vector<topology_note> postgres_connection::topology() {
    std::vector<topology_note> notes;
    notes.push_back({pooled_ ? "pooler: detected (the server's backend PID is not the connection's): statements "
                               "named after their text, the server's DateStyle and statement_timeout"
                             : "pooler: none detected (a server, or pooler=none)"});
    if (servers_ > 1) notes.push_back(servers_note());
    const auto r = execute(replication_sql, {});
    if (setting_at(r, 0) == "t")
        notes.push_back({"role: this server is a standby (read-only): no lock can be taken here; point the URI at the "
                         "primary (target_session_attrs=read-write)",
                         true});
    if (pooled_ && setting_at(r, 1) == "0")
        notes.push_back({"statement_timeout: 0 behind a pooler: a lock call that waits on a row lock runs on after the "
                         "client gave up, and may commit then; ALTER ROLE ... SET statement_timeout = '5s'",
                         true});
    notes.push_back(replication_note(setting_at(r, 4), setting_at(r, 2), setting_at(r, 3)));
    return notes;
}

}  // namespace shedlock::providers::detail
