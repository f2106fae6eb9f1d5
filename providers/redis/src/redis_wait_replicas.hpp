#pragma once
// wait_replicas: an acquisition counts only once enough replicas acknowledged it (WAIT after the
// acquire script, on the same connection: WAIT waits for that client's own writes).

#include "redis_connection.hpp"
#include "redis_lock_calls.hpp"
#include "redis_scripts.hpp"

namespace shedlock::providers::detail {

/// Sends `WAIT wait_replicas wait_timeout` on `connection`, right after its acquire script took
/// the lock. Returns when enough replicas acknowledged. Otherwise runs `release` (the unlock
/// script with the new holder's owner token) and throws storage_error(unavailable, safe to
/// retry) naming wait_replicas and the count that acknowledged: the lock is then not held, and
/// the failure is never reported as "held elsewhere". If the release fails too, the error is in
/// doubt and says the key expires after lock_at_most_for.
void confirm_on_replicas(redis_connection& connection, const redis_options& options, redis_scripts& scripts,
                         const lock_script_call& release);

/// Sends WAIT on `connection`, right after its extend script extended the lock. Fewer replicas
/// than wait_replicas: throws storage_error(unavailable, safe to retry: an extend is
/// owner-checked) saying the lock is certain only until its previous lock_until.
void confirm_extension_on_replicas(redis_connection& connection, const redis_options& options,
                                   const std::string& lock_key);

}  // namespace shedlock::providers::detail
