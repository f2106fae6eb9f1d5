#pragma once
// What `shedlock doctor` hears of a Redis connection's topology (issue 24): the server's role,
// the Sentinel primary, replication, persistence and eviction, and which of them weaken a lock.

#include "redis_connection.hpp"

#include <shedlock/lock_inspector.hpp>

#include <vector>

namespace shedlock::providers::detail {

/// Asks the server on `connection` (ROLE, INFO, CONFIG GET save) and, with sentinels, every
/// sentinel. Throws storage_error when the server does not answer.
std::vector<topology_note> redis_topology(redis_connection& connection, const redis_options& options);

}  // namespace shedlock::providers::detail
