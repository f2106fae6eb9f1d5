#pragma once
// A redis_connection to a whole Redis Cluster: each command goes to the primary serving its
// key's slot, over a connection of this router's own to that primary (opened on first use), and
// follows MOVED and ASK. The providers' code (scripts, run records, listing) runs unchanged on it.

#include "redis_cluster_state.hpp"
#include "redis_connection.hpp"

#include <map>
#include <memory>

namespace shedlock::providers::detail {

/// One router per pooled "connection": a pool of `pool_size` routers keeps at most `pool_size`
/// connections open to each primary. Not thread-safe (a pool lends it to one caller at a time).
///
/// Keyless commands (SCRIPT LOAD, TIME) go to the node the previous command went to: SCRIPT LOAD
/// after a NOSCRIPT reply then loads the script on the node that lacked it.
class redis_cluster_connection final : public redis_connection {
public:
    explicit redis_cluster_connection(std::shared_ptr<redis_cluster_state> state);

    std::vector<reply_ptr> pipeline(const std::vector<std::vector<std::string_view>>& commands,
                                    const char* what) override;
    void for_each_primary(const std::function<void(redis_connection&)>& fn) override;
    std::vector<topology_note> topology_notes() override;

private:
    reply_ptr route(const std::vector<std::string_view>& command, const char* what);
    /// Sends `command` to `node` (after ASKING when `asking`); drops the node's connection and
    /// marks the map stale when it fails.
    reply_ptr send(const cluster_address& node, const std::vector<std::string_view>& command, const char* what,
                   bool asking);
    redis_connection& node(const cluster_address& address);
    cluster_address keyless_target();

    std::shared_ptr<redis_cluster_state> state_;
    std::map<cluster_address, std::unique_ptr<redis_connection>> nodes_;
    std::optional<cluster_address> last_;
};

/// "Redis Cluster at seed1:port,seed2:port" for messages (no credentials).
std::string describe_cluster(const redis_cluster_options& options);

}  // namespace shedlock::providers::detail
