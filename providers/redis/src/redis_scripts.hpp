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

private:
    const std::string& sha_of(redis_connection& connection, redis_script script);
    std::string load(redis_connection& connection, redis_script script);

    std::mutex mutex_;
    std::array<std::string, redis_script_count> sha_;
    std::array<std::atomic<bool>, redis_script_count> known_{};
};

}  // namespace shedlock::providers::detail
