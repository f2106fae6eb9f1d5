#pragma once
/// \file
/// The SQL providers' connection pool: the pool every server backend shares, over sql_connection.

#include <shedlock/detail/connection_pool.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <chrono>
#include <functional>
#include <memory>

namespace shedlock::providers::sql {

using connection_factory = std::function<std::unique_ptr<sql_connection>()>;
using connection_pool = shedlock::detail::connection_pool<sql_connection>;

/// `size` connections at most, waiting up to `wait` for a free one. No reconnect backoff: a
/// restarted server is used by the very next call (SQL connects are cheap next to a timeout).
inline connection_pool::settings pool_settings(std::size_t size, std::chrono::milliseconds wait) {
    connection_pool::settings s;
    s.size = size;
    s.wait_timeout = wait;
    return s;
}

}  // namespace shedlock::providers::sql
