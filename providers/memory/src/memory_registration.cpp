// memory: — locks and run records in this process (tests, single-instance deployments).
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

namespace shedlock::providers {

void register_memory_provider(provider_registry& registry) {
    backend_registration backend{"memory", {"memory"}, {}, {}, {}};
    backend.open_locks = [](const provider_uri& uri, const open_request& request) -> std::unique_ptr<lock_provider> {
        uri_options(uri).finish();  // memory: takes no options
        return std::make_unique<memory_lock_provider>(request.clock ? *request.clock : system_clock::instance());
    };
    backend.open_runs = [](const provider_uri& uri, const open_request& request) -> std::unique_ptr<run_store> {
        uri_options(uri).finish();
        return std::make_unique<memory_run_store>(request.retention);
    };
    backend.open_claims = [](const provider_uri& uri,
                             const open_request& request) -> std::unique_ptr<idempotency_store> {
        uri_options(uri).finish();
        return std::make_unique<memory_idempotency_store>(request.clock ? *request.clock : system_clock::instance());
    };
    registry.add(std::move(backend));
}

}  // namespace shedlock::providers
