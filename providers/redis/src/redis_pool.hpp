#pragma once
// The Redis providers' connection pool: the pool every server backend shares, over
// redis_connection, with a reconnect backoff so a Redis outage fails calls fast.

#include "redis_connection.hpp"

#include <shedlock/detail/connection_pool.hpp>

#include <chrono>

namespace shedlock::providers::detail {

class redis_pool : public shedlock::detail::connection_pool<redis_connection> {
public:
    /// After a failed connect, calls fail at once for this long instead of each waiting for a
    /// connect timeout.
    static constexpr std::chrono::milliseconds reconnect_backoff{250};

    explicit redis_pool(const redis_options& options);
    /// A pool of connections that `open` makes (a Redis Cluster's routers); `options` gives the
    /// size and timeouts, `server` names it in messages.
    redis_pool(const redis_options& options, factory open, std::string server);
};

}  // namespace shedlock::providers::detail
