#include "redis_wait_replicas.hpp"

#include "redis_keys.hpp"

#include <shedlock/error.hpp>

#include <string>

namespace shedlock::providers::detail {

void confirm_on_replicas(redis_connection& connection, const redis_options& options, redis_scripts& scripts,
                         const lock_script_call& release) {
    const std::string wanted = std::to_string(options.wait_replicas);
    const std::string timeout = std::to_string(effective_wait_timeout(options).count());
    const auto reply = connection.checked({"WAIT", wanted, timeout}, "WAIT");
    if (reply->type != REDIS_REPLY_INTEGER)
        throw storage_error(storage_category::invalid_data, connection.where() + " answered WAIT with a non-integer reply");
    if (reply->integer >= options.wait_replicas) return;
    const std::string shortfall =
        connection.where() + ": the acquisition of \"" + release.lock_key + "\" reached " + std::to_string(reply->integer) +
        " of wait_replicas=" + wanted + " replica(s) within wait_timeout=" + timeout + "ms";
    try {
        scripts.run(connection, release.script, release.key_views(), release.arg_views());
    } catch (const storage_error& e) {
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt,
                            shortfall + "; releasing it failed too (" + e.what() +
                                "), so the key expires after lock_at_most_for; " + may_have_been_applied);
    }
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        shortfall + ", so it was released and is not held; check the replicas (INFO replication: "
                                    "connected_slaves and their lag), or lower wait_replicas or raise wait_timeout");
}

}  // namespace shedlock::providers::detail
