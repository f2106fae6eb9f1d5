#include "redis_scripts.hpp"

#include "redis_claim_scripts.hpp"
#include "redis_errors.hpp"

namespace shedlock::providers::detail {
namespace {

// SET NX PX writes nothing when the lock is held. On that path a GET raises WRONGTYPE for a
// foreign non-string key, which SET NX would otherwise report as "held" forever. A fence key of
// the wrong type (or not a number) undoes the SET, so a failed acquire never leaves a lock behind.
// The token never falls below the server clock in microseconds: a counter lost with a restart
// without persistence, or a failover to a replica that lagged, cannot hand out a token that was
// already issued (as long as the server clock does not run backwards). Lua numbers are doubles:
// exact up to 2^53, about 285 years of microseconds since 1970.
constexpr std::string_view acquire_lua = R"lua(
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('GET', KEYS[1])
  return -1
end
if not KEYS[2] then return 0 end
local last = redis.pcall('GET', KEYS[2])
if type(last) == 'table' and last.err then
  redis.call('DEL', KEYS[1])
  return last
end
local previous = 0
if last then
  previous = tonumber(last)
  if not previous then
    redis.call('DEL', KEYS[1])
    return redis.error_reply('ERR fence key does not hold a number')
  end
end
local now = redis.call('TIME')
local token = math.max(previous + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
redis.call('SET', KEYS[2], string.format('%.0f', token))
return token
)lua";

// Only the owner's live key is touched (an expired or released key is gone, and stays gone).
// The TTL becomes the remaining lock_at_least_for, capped at the key's remaining TTL: a release
// that arrives late (held in transit, re-sent after a timeout) never lengthens the lease. Only
// when ARGV[3] is '1' (an extension left a lease shorter than the minimum hold promised at
// acquisition) may it outlast the TTL. None left deletes the key. The fence key is never deleted.
constexpr std::string_view unlock_lua = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local left = tonumber(ARGV[2])
if left <= 0 then return redis.call('DEL', KEYS[1]) end
if ARGV[3] ~= '1' then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl >= 0 and ttl < left then left = ttl end
end
redis.call('PEXPIRE', KEYS[1], left)
return 1
)lua";

// A key that exists is live (Redis never returns an expired key), so "still owner" is enough.
constexpr std::string_view extend_lua = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
)lua";

}  // namespace

const char* script_name(redis_script script) {
    switch (script) {
        case redis_script::acquire: return "the acquire script (EVALSHA)";
        case redis_script::unlock: return "the unlock script (EVALSHA)";
        case redis_script::extend: return "the extend script (EVALSHA)";
        default: return "an idempotency script (EVALSHA)";
    }
}

bool is_noscript(const redisReply& reply) {
    return reply.type == REDIS_REPLY_ERROR && std::string_view(reply.str, reply.len).substr(0, 8) == "NOSCRIPT";
}

std::string loaded_sha(const redisReply& reply, const std::string& where) {
    if (reply.type != REDIS_REPLY_STRING)
        throw storage_error(storage_category::other, where + " answered SCRIPT LOAD without a SHA1");
    return std::string(reply.str, reply.len);
}

std::vector<std::string_view> evalsha_command(std::string_view sha, const std::string& numkeys,
                                              const std::vector<std::string_view>& keys,
                                              const std::vector<std::string_view>& args) {
    std::vector<std::string_view> command{"EVALSHA", sha, numkeys};
    command.insert(command.end(), keys.begin(), keys.end());
    command.insert(command.end(), args.begin(), args.end());
    return command;
}

std::string_view script_source(redis_script script) {
    switch (script) {
        case redis_script::acquire: return acquire_lua;
        case redis_script::unlock: return unlock_lua;
        case redis_script::extend: return extend_lua;
        default: return claim_script_source(script);
    }
}

std::string redis_scripts::load(redis_connection& connection, redis_script script) {
    auto reply = connection.checked({"SCRIPT", "LOAD", script_source(script)}, "SCRIPT LOAD");
    return loaded_sha(*reply, connection.where());
}

std::string redis_scripts::known_sha(redis_script script) const {
    const auto i = static_cast<std::size_t>(script);
    if (known_[i].load(std::memory_order_acquire)) return sha_[i];
    return {};
}

void redis_scripts::remember(redis_script script, std::string sha) {
    const auto i = static_cast<std::size_t>(script);
    std::lock_guard guard(mutex_);
    if (!known_[i].load(std::memory_order_relaxed)) {
        sha_[i] = std::move(sha);
        known_[i].store(true, std::memory_order_release);
    }
}

const std::string& redis_scripts::sha_of(redis_connection& connection, redis_script script) {
    const auto i = static_cast<std::size_t>(script);
    if (known_[i].load(std::memory_order_acquire)) return sha_[i];
    remember(script, load(connection, script));
    return sha_[i];
}

reply_ptr redis_scripts::run(redis_connection& connection, redis_script script, const std::vector<std::string_view>& keys,
                             const std::vector<std::string_view>& args) {
    const std::string numkeys = std::to_string(keys.size());
    const auto command = evalsha_command(sha_of(connection, script), numkeys, keys, args);
    auto reply = connection.command(command, script_name(script));
    // Same source, same SHA1: only the server forgot it (restart, failover, SCRIPT FLUSH). A
    // flush can land again between the load and the call, hence a few rounds.
    for (int reload = 0; reload < noscript_reloads && is_noscript(*reply); ++reload) {
        load(connection, script);
        reply = connection.command(command, script_name(script));
    }
    if (reply->type == REDIS_REPLY_ERROR) throw reply_error({reply->str, reply->len}, script_name(script), connection.where());
    return reply;
}

}  // namespace shedlock::providers::detail
