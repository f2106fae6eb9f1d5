#pragma once
// Shared by the Redis Cluster tests: the cluster that ../cluster.sh started
// ($SHEDLOCK_TEST_REDIS_CLUSTER_URI), its nodes by role, and raw looks at them behind the
// provider's back.

#include "redis_test_support.hpp"

#include <shedlock/providers/redis_cluster.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::test {

/// The cluster's options with a prefix unique to this run; fails the test when the variable is
/// unset (the ctest wrapper cluster_test.sh starts the cluster and sets it).
providers::redis_cluster_options cluster_test_options(const std::string& prefix_base);

/// The six nodes cluster.sh starts: the first seed's port and the five after it.
std::vector<std::uint16_t> cluster_ports();

/// A raw connection to the node on `port` (same credentials as the URI).
std::unique_ptr<raw_redis> raw_node(std::uint16_t port);

/// The ports of the nodes that answer ROLE with "master" now.
std::vector<std::uint16_t> primary_ports();

/// The primary that holds `key` (EXISTS 1); 0 when none does.
std::uint16_t holder_of(const std::string& key);

/// CLUSTER MYID of the node on `port`.
std::string node_id(std::uint16_t port);

/// The PID of the node on `port`, from cluster.sh's pid file.
int node_pid(std::uint16_t port);

}  // namespace shedlock::test
