// redis:// — the Redis provider in the provider registry. No schema: keys need no DDL.
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/redis_idempotency_store.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>
#include <shedlock/providers/redis_run_store.hpp>

namespace shedlock::providers {

void register_redis_provider(provider_registry& registry) {
    backend_registration backend{"redis", {"redis"}, {}, {}, {}};
    backend.open_locks = [](const provider_uri& uri, const open_request& request) {
        return make_redis_lock_provider(redis_options::from_uri(uri),
                                        request.clock ? *request.clock : system_clock::instance());
    };
    backend.open_runs = [](const provider_uri& uri, const open_request& request) {
        auto options = redis_run_options::from_uri(uri);
        options.retention = request.retention;
        return make_redis_run_store(options);
    };
    backend.open_claims = [](const provider_uri& uri, const open_request& request) {
        return make_redis_idempotency_store(redis_options::from_uri(uri),
                                            request.clock ? *request.clock : system_clock::instance());
    };
    backend.schema = [](const provider_uri& uri) {
        (void)redis_options::from_uri(uri);  // still reject bad options
        return std::string();
    };
    registry.add(std::move(backend));
}

}  // namespace shedlock::providers
