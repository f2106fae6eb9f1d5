#pragma once
// Redis Sentinel: reading `redis-sentinel://` URIs, and finding the primary a new connection
// talks to (SENTINEL GET-MASTER-ADDR-BY-NAME, then ROLE). See docs/redis-provider.md, "Sentinel".

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::providers::detail {

/// At most this many sentinels in one URI (each is asked in turn on every new connection).
constexpr std::size_t max_sentinels = 16;

/// Fills `options.sentinels`, `sentinel_master`, `sentinel_user` and `sentinel_password` from a
/// redis-sentinel:// URI (the host list and the path; the query keys from `query`). Throws
/// configuration_error naming the value and the fix.
void read_sentinel_uri(const provider_uri& uri, uri_options& query, redis_options& options);

/// Throws configuration_error for sentinel options that cannot work (none of them, a bad port,
/// an empty or odd master name, more than max_sentinels, the same sentinel twice).
void validate_sentinel_options(const redis_options& options);

/// "s1:26379,s2:26379" (for messages).
std::string describe_sentinels(const redis_options& options);

/// Where discovery found the primary.
struct sentinel_answer {
    std::string host;
    std::uint16_t port = 0;
    std::string sentinel;  ///< "host:port" of the sentinel that answered
};

/// One sentinel's reply to GET-MASTER-ADDR-BY-NAME.
struct sentinel_reply {
    std::optional<sentinel_answer> address;  ///< empty: see why
    bool reached = false;                    ///< the sentinel answered (even "unknown")
    bool unknown = false;                    ///< it answered that it does not monitor the name
    std::string why;                         ///< without an address: what went wrong
};

/// Asks one sentinel (within connect_timeout); never throws storage_error.
sentinel_reply ask_sentinel(const redis_options& options, const redis_sentinel_address& sentinel);

/// Asks the sentinels in order, each within connect_timeout (connect, AUTH, the query); a
/// sentinel that is down, refuses, or does not know the master is skipped. Throws
/// storage_error(unavailable, safe to retry) naming every sentinel's answer when none named a
/// primary, or storage_error(misconfigured) when every sentinel that answered said it does not
/// monitor `sentinel_master`.
sentinel_answer ask_sentinels(const redis_options& options);

/// The options of a direct connection to `where` (the data node's credentials, db, timeouts).
redis_options primary_options(const redis_options& options, const sentinel_answer& where);

/// The options of a connection to one sentinel (its own credentials, no db).
redis_options sentinel_connection_options(const redis_options& options, const redis_sentinel_address& sentinel);

}  // namespace shedlock::providers::detail
