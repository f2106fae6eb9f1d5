// memory: — locks, run records and claims in this process (tests, single-instance deployments).
// The lock provider (with its inspector) is this provider's; the run store and the idempotency store
// are core's generic in-process stores.
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/providers/memory_schemes.hpp>

namespace shedlock::providers {

void register_memory_provider(provider_registry& registry) {
    backend_registration backend{"memory", memory_schemes(), {}, {}};
    backend.open_session = [](const provider_uri& uri, const open_request& request) {
        uri_options(uri).finish();  // memory: takes no options
        const shedlock::clock& clock = request.clock ? *request.clock : system_clock::instance();
        session_parts parts;
        parts.locks = [&clock]() -> std::unique_ptr<lock_provider> { return std::make_unique<memory_lock_provider>(clock); };
        parts.runs = [retention = request.retention]() -> std::unique_ptr<run_store> {
            return std::make_unique<memory_run_store>(retention);
        };
        parts.claims = [&clock]() -> std::unique_ptr<idempotency_store> {
            return std::make_unique<memory_idempotency_store>(clock);
        };
        return parts;
    };
    registry.add(std::move(backend));
}

}  // namespace shedlock::providers
