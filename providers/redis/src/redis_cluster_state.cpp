#include "redis_cluster_state.hpp"

#include "redis_connection.hpp"
#include "redis_errors.hpp"

#include <algorithm>

namespace shedlock::providers::detail {
namespace {

/// A stale map is re-read at most this often, so a dead primary's callers (each failing at once
/// with connection refused) do not each ask the cluster for its map.
constexpr std::chrono::milliseconds min_reread_interval{100};

std::string seeds_text(const std::vector<cluster_address>& nodes) {
    std::string out;
    for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n.text();
    return out;
}

/// The error a redis-server without cluster-enabled gives to CLUSTER commands.
bool cluster_disabled(const redisReply& reply) {
    return reply.type == REDIS_REPLY_ERROR &&
           std::string_view(reply.str, reply.len).find("cluster support disabled") != std::string_view::npos;
}

}  // namespace

redis_cluster_state::redis_cluster_state(redis_cluster_options options) : options_(std::move(options)) {}

redis_options redis_cluster_state::node_options(const cluster_address& node) const {
    redis_options o = options_.node;
    o.host = node.host;
    o.port = node.port;
    o.db = 0;
    return o;
}

std::vector<cluster_address> redis_cluster_state::candidates_locked() const {
    std::vector<cluster_address> nodes;
    const auto add = [&](const cluster_address& a) {
        if (std::find(nodes.begin(), nodes.end(), a) == nodes.end()) nodes.push_back(a);
    };
    for (const auto& p : map_.primaries) {
        add(p.address);
        for (const auto& r : p.replicas) add(r);
    }
    for (const auto& s : options_.seeds) add({s.host, s.port});
    return nodes;
}

slot_map redis_cluster_state::read_from_any(const std::vector<cluster_address>& candidates) const {
    std::string last_error, not_cluster;
    for (const auto& node : candidates) {
        try {
            redis_connection connection(node_options(node));
            auto reply = connection.command({"CLUSTER", "SLOTS"}, "CLUSTER SLOTS");
            if (cluster_disabled(*reply)) {
                not_cluster = node.text();
                last_error = node.text() + " has cluster support disabled";
                continue;
            }
            if (reply->type == REDIS_REPLY_ERROR)
                throw reply_error({reply->str, reply->len}, "CLUSTER SLOTS", connection.where());
            auto map = parse_cluster_slots(*reply, node, connection.where());
            if (!map.primaries.empty()) return map;
            last_error = node.text() + " knows no slots yet";
        } catch (const storage_error& e) {
            if (e.category() == storage_category::access_denied || e.category() == storage_category::invalid_data) throw;
            last_error = e.what();
        }
    }
    // A plain redis-server among the seeds and no cluster node reachable: the URI, not the
    // network, is wrong, and no retry mends it.
    if (!not_cluster.empty())
        throw storage_error(storage_category::misconfigured, retry_advice::safe,
                            "Redis at " + not_cluster +
                                " is not a Redis Cluster node (\"ERR This instance has cluster support disabled\") and no "
                                "cluster node answered (tried " + seeds_text(candidates) +
                                "); for a single server write redis://, for a Sentinel-watched primary "
                                "redis-sentinel://, or list the cluster's nodes as seeds");
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        "no Redis Cluster node answered CLUSTER SLOTS (tried " + seeds_text(candidates) +
                            "); check that the cluster is running and a seed in the URI is reachable; last error: " +
                            last_error);
}

void redis_cluster_state::refresh_locked(std::unique_lock<std::mutex>& lock) {
    const auto candidates = candidates_locked();
    lock.unlock();  // connecting takes time; others keep routing by the map they have
    slot_map fresh;
    try {
        fresh = read_from_any(candidates);
    } catch (...) {
        lock.lock();
        last_read_ = std::chrono::steady_clock::now();
        throw;
    }
    lock.lock();
    map_ = std::move(fresh);
    have_map_ = true;
    stale_ = false;
    ++refreshes_;
    last_read_ = std::chrono::steady_clock::now();
}

void redis_cluster_state::ensure_fresh(std::unique_lock<std::mutex>& lock) {
    if (!have_map_) return refresh_locked(lock);
    if (stale_ && std::chrono::steady_clock::now() - last_read_ >= min_reread_interval) refresh_locked(lock);
}

cluster_address redis_cluster_state::owner_of(std::uint16_t slot) {
    std::unique_lock lock(mutex_);
    ensure_fresh(lock);
    const auto owner = map_.owner[slot];
    if (owner < 0) {
        stale_ = true;
        throw storage_error(storage_category::unavailable, retry_advice::safe,
                            "no primary of the Redis Cluster serves slot " + std::to_string(slot) +
                                " (cluster_state fail?); the call was not sent; check CLUSTER INFO and retry");
    }
    return map_.primaries[static_cast<std::size_t>(owner)].address;
}

cluster_address redis_cluster_state::owner_after_failure(std::uint16_t slot) {
    mark_stale();
    return owner_of(slot);
}

std::vector<cluster_primary> redis_cluster_state::primaries() {
    return current().primaries;
}

slot_map redis_cluster_state::current() {
    std::unique_lock lock(mutex_);
    ensure_fresh(lock);
    return map_;
}

void redis_cluster_state::moved(std::uint16_t slot, const cluster_address& node) {
    const std::lock_guard guard(mutex_);
    map_.assign(slot, node);
    stale_ = true;
    last_read_ = {};  // re-read at once: a MOVED is news, not a failing node
}

void redis_cluster_state::mark_stale() {
    const std::lock_guard guard(mutex_);
    stale_ = true;
}

std::uint64_t redis_cluster_state::refreshes() const {
    const std::lock_guard guard(mutex_);
    return refreshes_;
}

}  // namespace shedlock::providers::detail
