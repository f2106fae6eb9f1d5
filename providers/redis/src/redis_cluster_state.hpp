#pragma once
// What every connection of one Redis Cluster session shares: the slot map, read from the seeds
// or any known node, and re-read when a node moved a slot or stopped answering.

#include "redis_cluster_slots.hpp"

#include <shedlock/providers/redis_cluster.hpp>

#include <chrono>
#include <mutex>
#include <vector>

namespace shedlock::providers::detail {

/// At most this many seeds in redis_cluster_options (as for sentinels).
inline constexpr std::size_t max_cluster_seeds = 16;

/// Throws configuration_error for options no cluster can take: no seed, more than
/// max_cluster_seeds, a seed without host or port or listed twice, max_redirects outside 1..16.
void validate_cluster_options(const redis_cluster_options& o);

/// Thread safety: safe for concurrent use.
class redis_cluster_state {
public:
    explicit redis_cluster_state(redis_cluster_options options);

    const redis_cluster_options& options() const noexcept { return options_; }
    /// The options of a connection to `node` (its host and port, the session's credentials).
    redis_options node_options(const cluster_address& node) const;

    /// The primary serving `slot`, reading the map first when there is none or it is stale.
    /// Throws storage_error(unavailable, safe) when no node answers or no primary serves the slot.
    cluster_address owner_of(std::uint16_t slot);
    /// Every primary of the current map (read first when needed).
    std::vector<cluster_primary> primaries();
    /// A copy of the current map (read first when needed).
    slot_map current();

    /// A node answered MOVED: `slot` is now served by `node`; the whole map is re-read on the
    /// next call (a MOVED usually means a resharding or a failover moved more than one slot).
    void moved(std::uint16_t slot, const cluster_address& node);
    /// A node failed: re-read the map on the next call.
    void mark_stale();
    /// The primary of `slot` after the node serving it failed: the map is re-read now (unless
    /// another caller just did), so a promoted replica is found without waiting for a next call.
    cluster_address owner_after_failure(std::uint16_t slot);
    /// How often the map was read (tests and doctor).
    std::uint64_t refreshes() const;

private:
    /// Reads the map from the known nodes, then the seeds; the first that answers wins.
    void refresh_locked(std::unique_lock<std::mutex>& lock);
    slot_map read_from_any(const std::vector<cluster_address>& candidates) const;
    std::vector<cluster_address> candidates_locked() const;
    void ensure_fresh(std::unique_lock<std::mutex>& lock);

    const redis_cluster_options options_;
    mutable std::mutex mutex_;
    slot_map map_;
    bool have_map_ = false;
    bool stale_ = false;
    std::uint64_t refreshes_ = 0;
    std::chrono::steady_clock::time_point last_read_{};
};

}  // namespace shedlock::providers::detail
