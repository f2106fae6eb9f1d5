#include "redis_wait_replicas.hpp"

#include "redis_keys.hpp"

#include <shedlock/error.hpp>

#include <optional>
#include <string>

namespace shedlock::providers::detail {

namespace {

/// WAIT on `connection`; empty when enough replicas acknowledged, else "<where>: the <action>
/// of "<key>" reached k of wait_replicas=N replica(s) within wait_timeout=Tms".
std::optional<std::string> replica_shortfall(redis_connection& connection, const redis_options& options,
                                             const std::string& action, const std::string& lock_key) {
    const std::string wanted = std::to_string(options.wait_replicas);
    const std::string timeout = std::to_string(effective_wait_timeout(options).count());
    const auto reply = connection.checked({"WAIT", wanted, timeout}, "WAIT");
    if (reply->type != REDIS_REPLY_INTEGER)
        throw storage_error(storage_category::invalid_data, connection.where() + " answered WAIT with a non-integer reply");
    if (reply->integer >= options.wait_replicas) return std::nullopt;
    return connection.where() + ": the " + action + " of \"" + lock_key + "\" reached " + std::to_string(reply->integer) +
           " of wait_replicas=" + wanted + " replica(s) within wait_timeout=" + timeout + "ms";
}

constexpr const char* replica_advice =
    "; check the replicas (INFO replication: connected_slaves and their lag), or lower wait_replicas or raise "
    "wait_timeout";

}  // namespace

void confirm_on_replicas(redis_connection& connection, const redis_options& options, redis_scripts& scripts,
                         const lock_script_call& release) {
    const auto shortfall = replica_shortfall(connection, options, "acquisition", release.lock_key);
    if (!shortfall) return;
    try {
        scripts.run(connection, release.script, release.key_views(), release.arg_views());
    } catch (const storage_error& e) {
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt,
                            *shortfall + "; releasing it failed too (" + e.what() +
                                "), so the key expires after lock_at_most_for; " + may_have_been_applied);
    }
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        *shortfall + ", so it was released and is not held" + replica_advice);
}

void confirm_extension_on_replicas(redis_connection& connection, const redis_options& options,
                                   const std::string& lock_key) {
    const auto shortfall = replica_shortfall(connection, options, "extension", lock_key);
    if (!shortfall) return;
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        *shortfall + ": a failover now may forget it, so count on the lock only until its previous "
                                     "lock_until; extending again is harmless" +
                            replica_advice);
}

}  // namespace shedlock::providers::detail
