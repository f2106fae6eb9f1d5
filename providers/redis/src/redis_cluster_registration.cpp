// redis-cluster:// in the provider registry: locks and run records over a pool of cluster
// routers; claims are refused (their scripts write a shared index key, another slot).
#include "redis_cluster_connection.hpp"
#include "redis_cluster_registration.hpp"
#include "redis_keys.hpp"
#include "redis_session.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_cluster.hpp>

namespace shedlock::providers {
namespace detail {
namespace {

std::shared_ptr<redis_pool> cluster_pool(const redis_cluster_options& options) {
    validate_redis_options(options.node);
    validate_cluster_options(options);
    auto state = std::make_shared<redis_cluster_state>(options);
    return std::make_shared<redis_pool>(
        options.node, [state] { return std::make_unique<redis_cluster_connection>(state); }, describe_cluster(options));
}

/// A claim's scripts update its record and the claims index `<prefix>:claims:index` in one call;
/// in a cluster those keys live in different slots and the node refuses the script (CROSSSLOT).
[[noreturn]] void refuse_claims(const provider_uri& uri) {
    throw configuration_error(
        "provider URI \"" + uri.redacted() +
        "\": redis-cluster:// keeps no idempotency claims (a claim's script also writes the shared claims index, "
        "which lives in another slot of the cluster); keep claims on a single Redis primary (redis://) or a SQL "
        "backend, and locks and run records on the cluster");
}

}  // namespace

void register_redis_cluster_backend(provider_registry& registry) {
    backend_registration backend{"redis-cluster", {"redis-cluster"}, {}, {}};
    backend.open_session = [](const provider_uri& uri, const open_request& request) {
        const auto options = redis_cluster_options::from_uri(uri);
        const auto pool = cluster_pool(options);
        redis_run_options runs;
        runs.server = options.node;
        runs.retention = request.retention;
        const shedlock::clock* clock = request.clock ? request.clock : &system_clock::instance();
        session_parts parts;
        parts.locks = [options, pool, clock] { return make_redis_lock_provider(options.node, pool, *clock); };
        parts.runs = [runs, pool] { return make_redis_run_store(runs, pool); };
        parts.claims = [uri]() -> std::unique_ptr<idempotency_store> { refuse_claims(uri); };
        return parts;
    };
    backend.schema = [](const provider_uri& uri) {
        (void)redis_cluster_options::from_uri(uri);  // still reject bad options
        return std::string();
    };
    registry.add(std::move(backend));
}

}  // namespace detail

std::unique_ptr<lock_provider> make_redis_cluster_lock_provider(const redis_cluster_options& options,
                                                                const shedlock::clock& clock) {
    return detail::make_redis_lock_provider(options.node, detail::cluster_pool(options), clock);
}

}  // namespace shedlock::providers
