#pragma once
// redis-cluster:// is registered by the redis provider's registration (one module, two backends:
// the async registry finds no non-blocking driver named "redis-cluster", so asynchronous callers
// get the pooled adapter over the blocking provider).

#include <shedlock/provider_registry.hpp>

namespace shedlock::providers::detail {

void register_redis_cluster_backend(provider_registry& registry);

}  // namespace shedlock::providers::detail
