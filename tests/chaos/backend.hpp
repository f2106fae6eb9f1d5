#pragma once
// What a chaos run locks on: per backend, the lanes (one lock name each, with its own provider
// URI and clock mode) and the servers the fault injector may restart or cut off.

#include "tcp_proxy.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::chaos {

/// One lock name and how the workers reach it.
struct lane {
    std::string label;       ///< client_time, db_time, volatile, aof
    std::string lock_name;
    std::string uri;         ///< provider URI; rewritten to go through the server's proxy
    bool client_clock;       ///< lock times come from the client's clock, so a skewed client may
                             ///< legitimately break exclusion (client-time SQL, and SQLite: its
                             ///< "database clock" is the clock of the process that runs it)
    bool volatile_store;     ///< a server restart loses the lock keys (Redis without persistence)
    int server;              ///< index into backend_setup::servers; -1: no server (SQLite)
    int skew_ms;             ///< size of this lane's client clock faults
    /// A failover ("restart") can undo a release: the primary acknowledged it and died before its
    /// replica had it, so the promoted replica holds the lock until its lease ends (Redis
    /// Sentinel and Cluster, asynchronous PostgreSQL replication).
    bool failover_undoes_release = false;
    /// The lock may live on any of the servers (a Sentinel pair, a cluster's shards, whose roles
    /// move with every failover): every server's faults count for the lane, not only `server`'s.
    bool every_server = false;
};

/// A server the injector may restart (halt, wait, resume on the same data).
struct server_handle {
    std::string name;
    std::string host;        ///< as written in the lanes' URIs
    int port;                ///< where it listens; the lanes go through a proxy in front of it
    std::function<void()> halt;
    std::function<void()> resume;
    /// A proxy the backend made before it started its servers, because they announce its port
    /// to the clients (Sentinel, Cluster: the lanes' URIs and the topology already lead through
    /// it); null: the run puts a proxy in front of `port` and redirects the lanes' URIs to it.
    std::unique_ptr<tcp_proxy> proxy = nullptr;
};

struct backend_setup {
    std::vector<lane> lanes;
    std::vector<server_handle> servers;
    std::vector<std::shared_ptr<void>> owned;  ///< servers this run started itself (stopped when released)
};

/// The lanes and servers of `backend`. Server backends read SHEDLOCK_TEST_<X>_URI, _DIR and
/// _SCRIPT (set by providers/<backend>/server.sh start); Redis also gets a Redis with persistence
/// (appendonly, fsync always) that this run starts itself in work_dir. Throws
/// std::runtime_error naming what is missing.
/// `cli`: the shedlock binary (a backend may use it to wait for its server, postgres_pgbouncer).
backend_setup make_backend(const std::string& backend, const std::string& work_dir, const std::string& run_id,
                           const std::string& cli);

/// `uri` with its "host:port" replaced by 127.0.0.1:new_port.
std::string redirect_uri(const std::string& uri, const server_handle& server, int new_port);

}  // namespace shedlock::chaos
