// redis:// — the Redis provider in the provider registry. No schema: keys need no DDL. A session
// holds one pool, shared by its locks, run records and claims.
#include "redis_cluster_registration.hpp"
#include "redis_keys.hpp"
#include "redis_session.hpp"

#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/redis_idempotency_store.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>
#include <shedlock/providers/redis_run_store.hpp>
#include <shedlock/providers/redis_schemes.hpp>

namespace shedlock::providers {

void register_redis_provider(provider_registry& registry) {
    backend_registration backend{"redis", redis_schemes(), {}, {}};
    backend.open_session = [](const provider_uri& uri, const open_request& request) {
        const auto options = redis_options::from_uri(uri);
        detail::validate_redis_options(options);
        auto runs = redis_run_options::from_uri(uri);
        runs.retention = request.retention;
        const auto pool = std::make_shared<detail::redis_pool>(options);
        const shedlock::clock* clock = request.clock ? request.clock : &system_clock::instance();
        session_parts parts;
        parts.locks = [options, pool, clock] { return detail::make_redis_lock_provider(options, pool, *clock); };
        parts.runs = [runs, pool] { return detail::make_redis_run_store(runs, pool); };
        parts.claims = [options, pool, clock] { return detail::make_redis_idempotency_store(options, pool, *clock); };
        return parts;
    };
    backend.schema = [](const provider_uri& uri) {
        (void)redis_options::from_uri(uri);  // still reject bad options
        return std::string();
    };
    registry.add(std::move(backend));
    detail::register_redis_cluster_backend(registry);  // redis-cluster://
}

}  // namespace shedlock::providers
