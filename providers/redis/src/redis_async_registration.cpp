// The Redis provider's non-blocking driver in the async registry (shedlock::asio_all): locks
// natively non-blocking; claims stay on the pool (open_claims empty).
#include <shedlock/asio/async_session.hpp>
#include <shedlock/providers/redis_async.hpp>

namespace shedlock::providers {

void register_redis_async_driver(shedlock::asio::async_registry& registry) {
    shedlock::asio::async_registration driver;
    driver.name = "redis";
    driver.open_locks = [](const provider_uri& uri, backend_session& blocking,
                           shedlock::asio::lock_service::executor_type executor) {
        // The blocking session's clock is the one the caller asked for (open_request::clock).
        return make_redis_async_lock_service(redis_options::from_uri(uri), std::move(executor),
                                             blocking.locks().clock());
    };
    registry.add(std::move(driver));
}

}  // namespace shedlock::providers
