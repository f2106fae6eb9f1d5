#pragma once
// What the blocking lock provider (redis_lock_provider.cpp) and the non-blocking lock service
// (redis_async_lock_service.cpp) both do around the lock scripts: the keys and arguments of each
// call, reading its integer reply, and the lease it yields. One copy, so both keep the same
// semantics.

#include "redis_keys.hpp"
#include "redis_scripts.hpp"

#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/time.hpp>

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

/// One call of a lock script, its keys and arguments owned (a call may wait for a connection).
struct lock_script_call {
    redis_script script = redis_script::acquire;
    std::string lock_key;           ///< for messages
    std::vector<std::string> keys;  ///< lock key [, fence key]
    std::vector<std::string> args;

    std::vector<std::string_view> key_views() const { return {keys.begin(), keys.end()}; }
    std::vector<std::string_view> arg_views() const { return {args.begin(), args.end()}; }
};

/// The acquire script: the fence key only with `fencing`; PX = lock_at_most_for.
lock_script_call acquire_call(const redis_keys& keys, bool fencing, const lock_configuration& config,
                              std::string_view owner);
/// The unlock script: the remaining minimum hold becomes the TTL (0 deletes the key);
/// `past_lease`: it may outlast the key's remaining TTL (minimum_hold_outlasts_lease).
lock_script_call unlock_call(const redis_keys& keys, const lease& held, std::chrono::milliseconds remaining_hold,
                             bool past_lease);
/// The extend script: PX = at_most when `held.owner` still owns the key.
lock_script_call extend_call(const redis_keys& keys, const lease& held, std::chrono::milliseconds at_most);

/// The integer a lock script answered; throws storage_error(invalid_data) naming the key for
/// any other reply (a key written by something else). Error replies are the caller's (thrown
/// before this is reached).
std::int64_t lock_script_result(const redisReply& reply, const std::string& where, const std::string& lock_key);

/// The lease of an acquire that answered `token` at client time `now` (taken before the call);
/// empty when the lock is held (token < 0). The token is the fencing token with `fencing`.
std::optional<lease> acquired_lease(const lock_configuration& config, const std::string& owner, timestamp now,
                                    std::int64_t token, bool fencing);

/// The lease after an extend that answered `result` (1: extended) at client time `now`.
std::optional<lease> extended_lease(const lease& held, timestamp now, std::chrono::milliseconds at_most,
                                    std::chrono::milliseconds minimum_hold, std::int64_t result);

}  // namespace shedlock::providers::detail
