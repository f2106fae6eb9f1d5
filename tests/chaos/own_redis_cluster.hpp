#pragma once
// A Redis Cluster the chaos run starts itself (providers/redis/cluster.sh: 3 primaries, 3
// replicas, on ports of its own), for the Cluster lanes: a "restart" of it is a failover of the
// primary serving one lane's lock key (killed; its replica promoted by the cluster), its resume
// the killed node started again (it rejoins as a replica). The nodes announce the ports of the
// suite's proxies in front of them (the slot map and redirections name those), so the suite can
// cut the workers off from any node; the cluster bus stays direct.

#include "script_topology.hpp"

#include <string>
#include <vector>

namespace shedlock::chaos {

class own_redis_cluster {
public:
    /// Starts the six nodes with their files in `dir`, on `first_port` and the five after it.
    /// `keys`: the lanes' lock keys; each failover takes the next one's primary, in turn.
    /// `announced`: the six proxies' ports, which the nodes announce instead of their own.
    own_redis_cluster(std::string script, std::string dir, int first_port, std::vector<std::string> keys,
                      std::vector<int> announced);

    /// The redis-cluster:// URI of every node's proxy as a seed (password included: for the workers).
    std::string uri(const std::string& query) const;
    void fail_over();  ///< SIGKILL the primary of the next key's slot; returns once its replica serves it
    void rejoin();     ///< the killed node back, as a replica

private:
    int first_port_;
    std::vector<std::string> keys_;
    std::vector<int> announced_;
    std::size_t next_key_ = 0;
    script_topology cluster_;  // stops all six (by PID) when destroyed
};

}  // namespace shedlock::chaos
