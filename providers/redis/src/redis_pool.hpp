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
};

}  // namespace shedlock::providers::detail
