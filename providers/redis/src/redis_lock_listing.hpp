#pragma once
// list_locks for Redis: SCAN the prefix, then read each lock's owner, expiry and fence counter.

#include "redis_connection.hpp"
#include "redis_keys.hpp"

#include <shedlock/lock_provider.hpp>

#include <vector>

namespace shedlock::providers::detail {

/// Every lock name with a lock key or a fence key under the prefix. A lock key's value is the
/// owner token and its expiry (PEXPIRETIME, or TIME + PTTL before Redis 7) is `lock_until`; a
/// name with only a fence key is free (locked_by empty, lock_until = now). Redis stores no
/// acquisition time, so `locked_at` is the listing's server time. Not a snapshot: keys can
/// change while SCAN runs.
std::vector<lock_record> list_redis_locks(redis_connection& connection, const redis_keys& keys);

/// The server's clock (TIME), millisecond precision.
timestamp redis_server_time(redis_connection& connection);

}  // namespace shedlock::providers::detail
