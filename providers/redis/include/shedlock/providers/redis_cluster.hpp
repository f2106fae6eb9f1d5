#pragma once
/// \file
/// Locks and run records in a Redis Cluster: each key goes to the primary that owns its slot.

#include <shedlock/lock_provider.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::providers {

/// A cluster node to read the slot map from first.
struct redis_cluster_seed {
    std::string host;
    std::uint16_t port = 6379;
};

/// Where and how to reach a Redis Cluster. See docs/redis-provider.md, "Redis Cluster".
struct redis_cluster_options {
    /// Credentials, prefix/env, timeouts, java_compat and fencing, as for one server; host and
    /// port are unused (the seeds and the slot map say where), db is always 0 (a cluster has no
    /// other), and pool_size is the number of connections kept open to EACH primary.
    redis_options node;
    /// Nodes asked for the slot map (CLUSTER SLOTS) until one answers; at least one.
    std::vector<redis_cluster_seed> seeds;
    /// How many MOVED/ASK redirections (and TRYAGAIN/CLUSTERDOWN retries) one command follows
    /// before it fails with storage_error(unavailable), 1..16. A bound, so a map that keeps
    /// changing (a resharding loop, a split cluster) fails a call instead of spinning.
    int max_redirects = 5;

    /// Same as redis_cluster_options_from_uri.
    static redis_cluster_options from_uri(const provider_uri& uri);
};

/// Reads `redis-cluster://[user][:password]@seed1:6379,seed2:6379[/0]?max_redirects=5&...` with
/// every option redis:// takes (prefix, env, timeouts, pool_size, java_compat, fencing,
/// password_file, password_env). A database other than 0 is refused (a cluster has only 0).
/// Throws configuration_error naming the (redacted) URI, the value and the fix.
redis_cluster_options redis_cluster_options_from_uri(const provider_uri& uri);

/// Creates a lock provider on a Redis Cluster. No connection is made until the first call; the
/// first call reads the slot map from a seed. Each lock's keys share one hash tag, so each lock
/// lives on one primary and its scripts run there atomically.
///
/// Routing: a MOVED reply updates the slot and re-reads the whole map; an ASK reply (a slot
/// being migrated) sends ASKING and the command to the target once, map unchanged; TRYAGAIN and
/// CLUSTERDOWN are retried a few times; at most max_redirects hops per command.
///
/// Failure: a primary that stops answering fails the call with storage_error(unavailable) (safe
/// or in doubt, as for one server) and marks the map stale; later calls re-read it from any node
/// that answers and reach the replica the cluster promoted. Replication is asynchronous: a lock
/// acquired just before its primary fails can be lost (see docs/redis-provider.md).
///
/// Thread safety: safe for concurrent use; at most `pool_size` commands run at once.
std::unique_ptr<lock_provider> make_redis_cluster_lock_provider(const redis_cluster_options& options,
                                                                const shedlock::clock& clock = system_clock::instance());

}  // namespace shedlock::providers
