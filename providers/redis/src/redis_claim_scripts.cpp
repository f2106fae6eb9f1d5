#include "redis_claim_scripts.hpp"

namespace shedlock::providers::detail {
namespace {

// A record is a hash {state, owner, token, attempt, claimed_at, expires_at, finished_at, result}
// with times in ms since the epoch (the store's clock, as the SQL stores) and "" for none; the
// index set lists the keys that have one. Times stay below 2^53: exact as Lua numbers.

// KEYS record, index; ARGV owner, token, now, expires_at, key -> {"1", attempt, previous
// failure} when claimed, else {"0", state, owner, token, attempt, claimed_at, expires_at,
// finished_at, result}.
constexpr std::string_view claim_lua = R"lua(
local fields = {'state', 'owner', 'token', 'attempt', 'claimed_at', 'expires_at', 'finished_at', 'result'}
local r = redis.call('HMGET', KEYS[1], unpack(fields))
local state = r[1]
if state and not (state == 'failed' or (state == 'running' and tonumber(r[6]) <= tonumber(ARGV[3]))) then
  return {'0', r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]}
end
local attempt = tonumber(r[4] or '0') + 1
local previous = ''
if state == 'failed' then previous = r[8] end
redis.call('HSET', KEYS[1], 'state', 'running', 'owner', ARGV[1], 'token', ARGV[2], 'attempt', attempt,
  'claimed_at', ARGV[3], 'expires_at', ARGV[4], 'finished_at', '', 'result', previous)
redis.call('SADD', KEYS[2], ARGV[5])
return {'1', tostring(attempt), previous}
)lua";

// KEYS record; ARGV owner, state, now, result -> 1 when finished, 0 when the claim was lost.
constexpr std::string_view finish_lua = R"lua(
local r = redis.call('HMGET', KEYS[1], 'owner', 'state')
if r[1] ~= ARGV[1] or r[2] ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'finished_at', ARGV[3], 'result', ARGV[4])
return 1
)lua";

// KEYS record, index; ARGV from ('' = no record), to, now, key -> 1 when applied.
constexpr std::string_view transition_lua = R"lua(
local state = redis.call('HGET', KEYS[1], 'state')
if ARGV[1] == '' then
  if state then return 0 end
  redis.call('HSET', KEYS[1], 'state', ARGV[2], 'owner', '', 'token', '', 'attempt', '0',
    'claimed_at', ARGV[3], 'expires_at', ARGV[3], 'finished_at', '', 'result', '')
  redis.call('SADD', KEYS[2], ARGV[4])
  return 1
end
if state ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
return 1
)lua";

// KEYS fence; ARGV token (canonical decimal int64) -> 1 when accepted. Compared as decimal
// text, not as Lua numbers (doubles: tokens above 2^53 would compare equal).
constexpr std::string_view fence_lua = R"lua(
local function less(a, b)
  local na, nb = a:sub(1, 1) == '-', b:sub(1, 1) == '-'
  if na ~= nb then return na end
  if na then a, b = b:sub(2), a:sub(2) end
  if #a ~= #b then return #a < #b end
  return a < b
end
local last = redis.call('GET', KEYS[1])
if last and not less(last, ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
)lua";

// KEYS record, index; ARGV key -> 1 when a record was deleted.
constexpr std::string_view reset_lua = R"lua(
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
)lua";

// KEYS record, index; ARGV cut-off, key -> 1 when deleted (not running, finished - or, for a
// transition-only record, created - before the cut-off). A key without a record leaves the index.
constexpr std::string_view purge_lua = R"lua(
local r = redis.call('HMGET', KEYS[1], 'state', 'finished_at', 'claimed_at')
if not r[1] then redis.call('SREM', KEYS[2], ARGV[2]) return 0 end
if r[1] == 'running' then return 0 end
local at = r[2]
if at == '' then at = r[3] end
if tonumber(at) >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
)lua";

}  // namespace

std::string_view claim_script_source(redis_script script) {
    switch (script) {
        case redis_script::claim: return claim_lua;
        case redis_script::finish: return finish_lua;
        case redis_script::transition: return transition_lua;
        case redis_script::fence: return fence_lua;
        case redis_script::reset: return reset_lua;
        case redis_script::purge: return purge_lua;
        default: return {};
    }
}

}  // namespace shedlock::providers::detail
