#pragma once
// The three Lua scripts, loaded once per server and called by EVALSHA.

#include "redis_connection.hpp"

#include <array>
#include <cstddef>
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

enum class redis_script {
    acquire,  ///< KEYS lock [fence], ARGV token px -> fencing token, 0 without fence key, -1 when held
    unlock,   ///< KEYS lock, ARGV token remaining_ms -> 1 when released/shortened, 0 when not ours
    extend,   ///< KEYS lock, ARGV token px -> 1 when extended, 0 when not ours or gone
    // The idempotency store's scripts (redis_claim_scripts.cpp documents each).
    claim,
    finish,
    transition,
    fence,
    reset,
    purge,
};
inline constexpr std::size_t redis_script_count = 9;

/// The Lua source of a script (for docs and the benchmark's raw floor).
std::string_view script_source(redis_script script);
/// How errors name the script ("the acquire script (EVALSHA)").
const char* script_name(redis_script script);
/// True for the NOSCRIPT error reply: the server forgot the script (restart, failover, SCRIPT
/// FLUSH); load it again and repeat the call.
bool is_noscript(const redisReply& reply);
/// How many times a call is repeated after NOSCRIPT (a flush may land between load and call).
inline constexpr int noscript_reloads = 3;
/// The SHA1 in the reply to SCRIPT LOAD; throws storage_error(other) naming `where` otherwise.
std::string loaded_sha(const redisReply& reply, const std::string& where);
/// `EVALSHA sha numkeys keys... args...`; the views point into the arguments and `numkeys`.
std::vector<std::string_view> evalsha_command(std::string_view sha, const std::string& numkeys,
                                              const std::vector<std::string_view>& keys,
                                              const std::vector<std::string_view>& args);

/// SHA1s of the scripts, learned from SCRIPT LOAD on first use. A server that lost its script
/// cache (restart, SCRIPT FLUSH) answers NOSCRIPT; the script is then loaded again on that
/// connection and the call repeated once.
///
/// Thread safety: safe for concurrent use.
class redis_scripts {
public:
    /// Runs `script`; throws the classified storage_error for an error reply.
    reply_ptr run(redis_connection& connection, redis_script script, const std::vector<std::string_view>& keys,
                  const std::vector<std::string_view>& args);
    /// The SHA1 learned for `script`, or empty before its first SCRIPT LOAD (the non-blocking
    /// service loads it on its own connection, then remember()s it).
    std::string known_sha(redis_script script) const;
    void remember(redis_script script, std::string sha);

private:
    const std::string& sha_of(redis_connection& connection, redis_script script);
    std::string load(redis_connection& connection, redis_script script);

    mutable std::mutex mutex_;
    std::array<std::string, redis_script_count> sha_;
    std::array<std::atomic<bool>, redis_script_count> known_{};
};

}  // namespace shedlock::providers::detail
