#include "redis_pool.hpp"

#include <memory>
#include <utility>

namespace shedlock::providers::detail {
namespace {

redis_pool::settings settings_for(const redis_options& options) {
    redis_pool::settings s;
    s.size = options.pool_size;
    s.wait_timeout = options.command_timeout;
    s.reconnect_backoff = redis_pool::reconnect_backoff;
    s.server = describe_server(options);
    // A connection whose reply stream broke must never be reused: a late reply would be read as
    // the answer to the next command.
    s.broken = [](const redis_connection& c) { return c.broken(); };
    return s;
}

}  // namespace

redis_pool::redis_pool(const redis_options& options)
    : connection_pool([options] { return std::make_unique<redis_connection>(options); }, settings_for(options)) {}

redis_pool::redis_pool(const redis_options& options, factory open, std::string server)
    : connection_pool(std::move(open), [&] {
          auto s = settings_for(options);
          s.server = std::move(server);
          return s;
      }()) {}

}  // namespace shedlock::providers::detail
