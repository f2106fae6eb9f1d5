#include "redis_lock_calls.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {

lock_script_call acquire_call(const redis_keys& keys, bool fencing, const lock_configuration& config,
                              std::string_view owner) {
    lock_script_call call{redis_script::acquire, keys.lock_key(config.name()), {}, {}};
    call.keys.push_back(call.lock_key);
    if (fencing) call.keys.push_back(keys.fence_key(config.name()));
    call.args = {std::string(owner), std::to_string(config.lock_at_most_for().count())};
    return call;
}

lock_script_call unlock_call(const redis_keys& keys, const lease& held, std::chrono::milliseconds remaining_hold,
                             bool past_lease) {
    lock_script_call call{redis_script::unlock, keys.lock_key(held.name), {}, {}};
    call.keys.push_back(call.lock_key);
    call.args = {held.owner, std::to_string(remaining_hold.count()), past_lease ? "1" : "0"};
    return call;
}

lock_script_call extend_call(const redis_keys& keys, const lease& held, std::chrono::milliseconds at_most) {
    lock_script_call call{redis_script::extend, keys.lock_key(held.name), {}, {}};
    call.keys.push_back(call.lock_key);
    call.args = {held.owner, std::to_string(at_most.count())};
    return call;
}

std::int64_t lock_script_result(const redisReply& reply, const std::string& where, const std::string& lock_key) {
    if (reply.type != REDIS_REPLY_INTEGER)
        throw storage_error(storage_category::invalid_data,
                            where + " answered a lock script with a non-integer reply; is the key \"" + lock_key +
                                "\" written by something else?");
    return reply.integer;
}

std::optional<lease> acquired_lease(const lock_configuration& config, const std::string& owner, timestamp now,
                                    std::int64_t token, bool fencing) {
    if (token < 0) return std::nullopt;
    std::optional<std::int64_t> fencing_token;
    if (fencing) fencing_token = token;
    return lease{config.name(), owner, now, now + config.lock_at_most_for(), now + config.lock_at_least_for(),
                 fencing_token};
}

std::optional<lease> extended_lease(const lease& held, timestamp now, std::chrono::milliseconds at_most,
                                    std::chrono::milliseconds minimum_hold, std::int64_t result) {
    if (result != 1) return std::nullopt;
    lease extended = held;
    extended.lock_until = now + at_most;
    extended.minimum_hold_until = now + minimum_hold;
    return extended;
}

}  // namespace shedlock::providers::detail
