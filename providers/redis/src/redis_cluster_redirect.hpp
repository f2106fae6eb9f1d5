#pragma once
// The error replies by which Redis Cluster nodes send a command elsewhere or ask for a retry.

#include "redis_cluster_slots.hpp"
#include "redis_connection.hpp"

#include <shedlock/error.hpp>

#include <optional>

namespace shedlock::providers::detail {

enum class redirect_kind {
    moved,  ///< `-MOVED slot host:port`: the slot lives there now
    ask,    ///< `-ASK slot host:port`: the slot is being migrated; this key is there already
    retry,  ///< `-TRYAGAIN` (a multi-key command mid-migration), `-CLUSTERDOWN`: nothing applied
};

struct redirect {
    redirect_kind kind = redirect_kind::moved;
    std::uint16_t slot = 0;
    cluster_address node;
};

/// The redirection an error reply asks for; empty for any other reply (a result, or an error
/// the caller handles: NOSCRIPT, WRONGTYPE, ...).
std::optional<redirect> redirect_of(const redisReply& reply);

/// The error after `bound` redirections of one command: unavailable and safe (every hop was
/// refused, so nothing was applied), quoting the last reply.
storage_error too_many_redirects(const redisReply& last, const char* what, const std::string& where, int bound);

/// Waits a little before retrying after TRYAGAIN/CLUSTERDOWN (longer each hop: a failover takes
/// about cluster-node-timeout to settle).
void wait_before_retry(int hop);

}  // namespace shedlock::providers::detail
