#pragma once
/// \file
/// Idempotency claims, states and fences in Redis: one hash per key, one Lua script per operation.

#include <shedlock/idempotency_store.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <memory>

namespace shedlock::providers {

/// Keys: a hash `<prefix>:claims:{<key>}` per key, a string `<prefix>:claims:fence:{<resource>}`
/// per fence and a set `<prefix>:claims:index` of the keys (with an `env`, `claims:<env>:`
/// instead of `claims:`). None matches the lock keys' shape, so list_locks never sees them.
/// Records have no TTL: they stay until reset() or purge().
///
/// Durability: a claim is only as durable as Redis. Without persistence (AOF, ideally
/// `appendfsync always`) a restart forgets every done key and the work runs again: use a SQL
/// backend for claims, or a persistent Redis. Scripts touch the record and the index in one call,
/// so a Redis Cluster needs all of them in one slot (not supported yet).
///
/// Options are validated here (configuration_error); no connection is made until the first call.
/// Calls throw storage_error. Thread safety: safe for concurrent use.
std::unique_ptr<idempotency_store> make_redis_idempotency_store(const redis_options& options,
                                                                const shedlock::clock& clock = system_clock::instance());

}  // namespace shedlock::providers
