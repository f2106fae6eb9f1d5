// The Redis provider's non-blocking driver in the async registry (shedlock::asio_all): locks
// natively non-blocking; claims stay on the pool (open_claims empty). A redis-sentinel:// URI,
// or wait_replicas, runs its locks on the blocking provider in a pool of threads instead
// (discovery and WAIT live in the blocking connection; docs/asio.md, per-backend table).
#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/providers/redis_async.hpp>

namespace shedlock::providers {

void register_redis_async_driver(shedlock::asio::async_registry& registry) {
    shedlock::asio::async_registration driver;
    driver.name = "redis";
    driver.open_locks = [](const provider_uri& uri, backend_session& blocking,
                           shedlock::asio::lock_service::executor_type executor)
        -> std::unique_ptr<shedlock::asio::lock_service> {
        const auto options = redis_options::from_uri(uri);
        if (!options.sentinels.empty() || options.wait_replicas > 0)
            return std::make_unique<shedlock::asio::pooled_lock_service>(
                blocking.share_locks(), std::move(executor),
                std::make_shared<shedlock::asio::blocking_pool>(options.pool_size));
        // The blocking session's clock is the one the caller asked for (open_request::clock).
        return make_redis_async_lock_service(options, std::move(executor), blocking.locks().clock());
    };
    registry.add(std::move(driver));
}

}  // namespace shedlock::providers
