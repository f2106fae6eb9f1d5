#pragma once
// A Redis primary, replica and three sentinels the chaos run starts itself
// (providers/redis/sentinel.sh, on ports of its own), for the Sentinel lanes: a "restart" of it is
// a failover (the node the sentinels name as primary killed, the replica promoted by them), its
// resume the killed node started again as the new primary's replica. The data nodes announce the
// ports of the suite's proxies in front of them (to the sentinels, and through them to the
// clients), so the suite can cut the workers off from either node.

#include "script_topology.hpp"

#include <string>
#include <vector>

namespace shedlock::chaos {

class own_redis_sentinel {
public:
    /// Starts all five with their files in `dir`; `port_base`: sentinel.sh's SHEDLOCK_SENTINEL_BASE
    /// (data nodes on 63810 + base and 63811 + base, sentinels on 26380-26382 + base).
    /// `announced`: the ports of the proxies in front of the primary and the replica, which the
    /// nodes announce instead of their own.
    own_redis_sentinel(std::string script, std::string dir, int port_base, const std::vector<int>& announced);
    int node_port(int node) const noexcept { return 63810 + base_ + node; }  ///< 0: the first primary

    /// The redis-sentinel:// URI of the three sentinels (passwords included: for the workers).
    std::string uri(const std::string& query) const;
    int first_sentinel_port() const noexcept { return 26380 + base_; }
    void fail_over();  ///< SIGKILL the primary; returns once the sentinels name the other node
    void rejoin();     ///< the killed node replicates from the new primary again

private:
    int base_;
    script_topology topology_;  // stops all five (by PID) when destroyed
};

}  // namespace shedlock::chaos
