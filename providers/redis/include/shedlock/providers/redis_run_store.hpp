#pragma once
/// \file
/// Run records in Redis: one capped stream per task.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>
#include <shedlock/run_store.hpp>

#include <cstddef>
#include <memory>

namespace shedlock::providers {

struct redis_run_options {
    /// Server, credentials, prefix/env and timeouts (java_compat and fencing are not used).
    redis_options server;
    run_retention retention;
    /// max_age is applied every this many appends (per store); max_per_task on every append.
    std::size_t prune_every = 32;

    /// Reads the lock provider's URI: every key redis_options::from_uri accepts, nothing more.
    /// Throws configuration_error naming the key; the password is never shown.
    static redis_run_options from_uri(const provider_uri& uri);
};

/// Keys: a stream `<prefix>:runs:{<task>}` per task (entries are records, the stream ID is the
/// Redis server's time at append) and a set `<prefix>:runs:tasks` of task names; with an `env`
/// both have `runs:<env>:` instead of `runs:`. None of them matches the lock keys' pattern, so
/// list_locks never sees them.
///
/// Retention: every append trims its stream to exactly `max_per_task` (XADD MAXLEN); every
/// `prune_every` appends the stream also drops entries appended more than `max_age` ago by the
/// server's clock (XTRIM MINID). tasks() lists only tasks whose stream still has entries.
///
/// Options are validated here (configuration_error); no connection is made until the first
/// call. Calls throw storage_error (unavailable while Redis is down, invalid_data for a key
/// of another type or an entry this store did not write). Thread safety: safe for concurrent use.
std::unique_ptr<run_store> make_redis_run_store(const redis_run_options& options);

}  // namespace shedlock::providers
