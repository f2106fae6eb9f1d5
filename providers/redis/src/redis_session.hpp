#pragma once
// The parts of a Redis backend session over the session's one pool (redis_registration.cpp);
// the public make_redis_* functions give each part a pool of its own instead.

#include "redis_pool.hpp"

#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/providers/redis_run_store.hpp>
#include <shedlock/run_store.hpp>

#include <memory>

namespace shedlock::providers::detail {

std::unique_ptr<lock_provider> make_redis_lock_provider(const redis_options& options, std::shared_ptr<redis_pool> pool,
                                                        const shedlock::clock& clock);
std::unique_ptr<run_store> make_redis_run_store(const redis_run_options& options, std::shared_ptr<redis_pool> pool);
std::unique_ptr<idempotency_store> make_redis_idempotency_store(const redis_options& options,
                                                                std::shared_ptr<redis_pool> pool,
                                                                const shedlock::clock& clock);

}  // namespace shedlock::providers::detail
