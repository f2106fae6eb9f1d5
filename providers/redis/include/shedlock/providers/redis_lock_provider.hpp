#pragma once
/// \file
/// Locks in Redis: `SET NX PX` plus a fencing counter, compare-and-release in Lua.

#include <shedlock/lock_provider.hpp>
#include <shedlock/provider_uri.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::providers {

/// One Redis Sentinel to ask for the primary's address.
struct redis_sentinel_address {
    std::string host;
    std::uint16_t port = 26379;
};

/// Where and how to reach Redis. See docs/redis-provider.md for the keys and scripts.
struct redis_options {
    std::string host = "127.0.0.1";
    std::uint16_t port = 6379;
    std::string user;                     ///< ACL user (Redis 6+); empty: the default user
    std::optional<std::string> password;  ///< never shown in any message
    int db = 0;                           ///< database index (SELECT)
    /// Key prefix; empty means "shedlock" (or "job-lock" with java_compat).
    std::string prefix;
    /// Environment segment, so several environments share one Redis; empty means none
    /// (or "default" with java_compat, as Java ShedLock does).
    std::string env;
    std::chrono::milliseconds connect_timeout{2000};  ///< TCP connect plus AUTH/SELECT handshake
    std::chrono::milliseconds command_timeout{1000};  ///< each command's round trip
    std::size_t pool_size = 4;                        ///< connections kept open, 1..64
    /// Java ShedLock's keys (`job-lock:<env>:<name>`) so Java and C++ instances share locks.
    bool java_compat = false;
    /// Keep a fencing counter in `<lock key>:fence`. Off: acquisitions carry no fencing token.
    bool fencing = true;

    /// Redis Sentinel (`redis-sentinel://` URIs): when not empty, `host`/`port` are not used;
    /// every new connection asks these sentinels, in order, for the address of the primary named
    /// `sentinel_master` and checks that it answers ROLE as a master. At most 16.
    std::vector<redis_sentinel_address> sentinels;
    std::string sentinel_master;                   ///< the name the sentinels monitor
    std::string sentinel_user;                     ///< ACL user on the sentinels; empty: default
    std::optional<std::string> sentinel_password;  ///< the sentinels' requirepass; never shown
    /// After each acquisition, `WAIT wait_replicas wait_timeout`: fewer acknowledging replicas
    /// release the lock again and the attempt throws storage_error(unavailable). 0: no WAIT.
    int wait_replicas = 0;
    /// How long WAIT waits; 0 means half of command_timeout. Must be below command_timeout.
    std::chrono::milliseconds wait_timeout{0};

    /// Same as redis_options_from_uri (the spelling every provider's options offer).
    static redis_options from_uri(const provider_uri& uri);
};

/// Reads `redis://[user][:password]@host[:6379][/db]?prefix=..&env=..&connect_timeout=2s&
/// command_timeout=1s&pool_size=4&java_compat=false&fencing=true&wait_replicas=0&wait_timeout=500ms`, or
/// `redis-sentinel://[user][:password]@s1:26379,s2:26379/<master name>?db=0&sentinel_password=..&
/// sentinel_user=..` (or sentinel_password_file / sentinel_password_env) with the same options
/// (user and password are the data node's); instead of a password in the
/// URI, `password_file=/path` or `password_env=NAME` (see read_uri_password). Throws
/// configuration_error naming the (redacted) URI and the fix for an unknown option or a bad value.
redis_options redis_options_from_uri(const provider_uri& uri);

/// Creates a Redis lock provider. Options are validated here (configuration_error); no connection
/// is made until the first call, so a provider created while Redis is down works once it is up.
///
/// Failure: while Redis is unreachable every call throws storage_error(unavailable) within
/// about connect_timeout (at once after a recent failed connect); connections are re-established
/// by later calls. Lock times run on the Redis server's clock (relative TTLs); `clock` only
/// measures the remaining `lock_at_least_for` at unlock.
///
/// Thread safety: safe for concurrent use; at most `pool_size` commands run at once.
std::unique_ptr<lock_provider> make_redis_lock_provider(const redis_options& options,
                                                        const shedlock::clock& clock = system_clock::instance());

}  // namespace shedlock::providers
