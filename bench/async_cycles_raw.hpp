#pragma once
// The raw non-blocking floors of bench/async_cycles: the provider's own scripts (Redis) or
// statements (PostgreSQL, MariaDB) through the client library's asynchronous API directly, written by
// hand for this bench, with the same number of cycles in flight and of connections as the
// library's driver.

#include "async_cycles.hpp"

#include <shedlock/providers/redis_lock_provider.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace shedlock::providers {
struct postgres_options;
struct mysql_options;
namespace sql {
class sql_lock_provider;
}
}  // namespace shedlock::providers

namespace shedlock::bench {

/// hiredis's redisAsyncContext on a minimal Asio adapter (the socket's readiness, nothing else):
/// options.pool_size connections used round-robin and pipelined, as the driver does; one loop
/// per name of EVALSHA of the provider's acquire and unlock scripts with the provider's keys and
/// arguments (redis_lock_calls.hpp). Connects at once (blocking, once).
cycle_runner raw_redis_side(const providers::redis_options& options, boost::asio::io_context& io,
                            std::vector<std::string> names, std::chrono::milliseconds at_most);

/// libpq's non-blocking API (PQsendQueryPrepared, PQconsumeInput, the socket as an Asio
/// descriptor): options.pool_size connections, one statement in flight on each, the others
/// queued in arrival order, as the SQL layer's async_connection_pool does; the provider's own
/// acquire and unlock statements (statements()) prepared once per connection, bound with the
/// provider's bind(). Connects and prepares at once (blocking, once).
cycle_runner raw_postgres_side(const providers::postgres_options& options,
                               const providers::sql::sql_lock_provider& provider, boost::asio::io_context& io,
                               std::vector<std::string> names, std::chrono::milliseconds at_most);

/// Connector/C's non-blocking API (mysql_stmt_execute_start/_cont, the socket as an Asio
/// descriptor), otherwise as raw_postgres_side: options.pool_size connections, one statement in
/// flight on each, the provider's acquire and unlock statements prepared once per connection,
/// its bind() values as text or 64-bit integers, its session settings (UTC, statement limit).
cycle_runner raw_mysql_side(const providers::mysql_options& options, const providers::sql::sql_lock_provider& provider,
                            boost::asio::io_context& io, std::vector<std::string> names, std::chrono::milliseconds at_most);

}  // namespace shedlock::bench
