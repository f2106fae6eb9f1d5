#include "own_redis_cluster.hpp"

#include <stdexcept>

namespace shedlock::chaos {
namespace {

// cluster.sh's 1000 ms node timeout can be tripped by the load of a full test pass (a failover
// nobody injected, which the analysis could not excuse); 3 s keeps a failover within seconds.
constexpr int node_timeout_ms = 3000;

std::vector<std::string> some_keys(std::vector<std::string> keys) {
    if (keys.empty()) throw std::invalid_argument("own_redis_cluster: no lock key to fail over");
    return keys;
}

}  // namespace

own_redis_cluster::own_redis_cluster(std::string script, std::string dir, int first_port, std::vector<std::string> keys,
                                     std::vector<int> announced)
    : first_port_(first_port), keys_(some_keys(std::move(keys))), announced_(std::move(announced)),
      cluster_(std::move(script), std::move(dir), "SHEDLOCK_REDIS_CLUSTER_PORT=" + std::to_string(first_port) +
                   " SHEDLOCK_REDIS_CLUSTER_NODE_TIMEOUT=" + std::to_string(node_timeout_ms) +
                   " SHEDLOCK_REDIS_CLUSTER_ANNOUNCE_PORTS='" + port_list(announced_) + "'",
               "cluster.log") {}

std::string own_redis_cluster::uri(const std::string& query) const {
    return "redis-cluster://:shedlock-test-pw@" + loopback_hosts(announced_) + "?" + query;
}

void own_redis_cluster::fail_over() {
    const std::string& key = keys_[next_key_++ % keys_.size()];
    cluster_.run("fail_over", "'" + key + "'");
}

void own_redis_cluster::rejoin() { cluster_.run("rejoin"); }

}  // namespace shedlock::chaos
