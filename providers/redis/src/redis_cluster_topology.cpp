// `shedlock doctor` on a Redis Cluster: the primaries, slot coverage, replicas and persistence.
#include "redis_cluster_connection.hpp"

#include <shedlock/error.hpp>

#include <map>
#include <sstream>

namespace shedlock::providers::detail {
namespace {

std::string reply_text(const redisReply& reply) { return std::string(reply.str, reply.len); }

/// A field of CLUSTER INFO ("cluster_state"); empty when absent.
std::string info_field(const std::string& info, const std::string& field) {
    const auto at = info.find(field + ":");
    if (at == std::string::npos) return {};
    const auto start = at + field.size() + 1;
    return info.substr(start, info.find_first_of("\r\n", start) - start);
}

/// CONFIG GET's value, or empty when the server refuses (a managed Redis, an ACL user).
std::optional<std::string> config_value(redis_connection& node, const char* name) {
    auto reply = node.command({"CONFIG", "GET", name}, "CONFIG GET");
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) return std::nullopt;
    return reply_text(*reply->element[1]);
}

/// "RDB (save 3600 1 ...), AOF off" and whether nothing survives a restart.
std::pair<std::string, bool> persistence_of(redis_connection& node) {
    const auto save = config_value(node, "save");
    const auto aof = config_value(node, "appendonly");
    if (!save || !aof) return {"persistence unknown (CONFIG GET refused)", false};
    const bool off = save->empty() && *aof != "yes";
    if (off) return {"persistence off (no RDB save points, AOF off): a restarted primary comes back empty", true};
    return {std::string(save->empty() ? "no RDB save points" : "RDB save \"" + *save + "\"") + ", AOF " +
                (*aof == "yes" ? "on" : "off"),
            false};
}

/// The replicas CLUSTER NODES lists per primary ID, failed ones left out: CLUSTER SLOTS omits a
/// replica that has not received data yet, which a doctor should still count.
std::map<std::string, std::vector<std::string>> replicas_by_primary(const std::string& nodes) {
    std::map<std::string, std::vector<std::string>> out;
    std::istringstream lines(nodes);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string id, address, flags, primary, ping, pong, epoch, link;
        fields >> id >> address >> flags >> primary >> ping >> pong >> epoch >> link;
        if (flags.find("slave") == std::string::npos || flags.find("fail") != std::string::npos) continue;
        out[primary].push_back(address.substr(0, address.find('@')) + (link == "connected" ? "" : " (" + link + ")"));
    }
    return out;
}

std::string ranges_text(const cluster_primary& p) {
    std::string out;
    std::size_t count = 0;
    for (const auto& [first, last] : p.ranges) {
        out += (out.empty() ? "" : ",") + std::to_string(first) + (first == last ? "" : "-" + std::to_string(last));
        count += static_cast<std::size_t>(last - first) + 1;
    }
    return "slots " + out + " (" + std::to_string(count) + ")";
}

topology_note primary_note(const cluster_primary& p, const std::vector<std::string>& replicas, redis_connection& node) {
    const auto [persistence, no_persistence] = persistence_of(node);
    std::string listed;
    for (const auto& r : replicas) listed += (listed.empty() ? "" : ", ") + r;
    const bool alone = replicas.empty();
    std::string text = "cluster primary " + p.address.text() + ": " + ranges_text(p) + "; " +
                       (alone ? std::string("no replica: if it fails, its slots are down until it returns")
                              : std::to_string(replicas.size()) + " replica(s) " + listed) +
                       "; " + persistence;
    return {std::move(text), alone || no_persistence};
}

}  // namespace

std::vector<topology_note> redis_cluster_connection::topology_notes() {
    const slot_map map = state_->current();
    const auto info = command({"CLUSTER", "INFO"}, "CLUSTER INFO");
    const std::string state = info->type == REDIS_REPLY_ERROR ? "unknown" : info_field(reply_text(*info), "cluster_state");
    const std::size_t covered = map.covered();
    std::vector<topology_note> notes;
    notes.push_back({"Redis Cluster: cluster_state " + state + ", " + std::to_string(map.primaries.size()) +
                         " primaries, " + std::to_string(covered) + " of 16384 slots covered" +
                         (covered < cluster_slot_count ? " (locks in uncovered slots fail as unavailable)" : ""),
                     state != "ok" || covered < cluster_slot_count});
    const auto nodes = command({"CLUSTER", "NODES"}, "CLUSTER NODES");
    const auto replicas = replicas_by_primary(nodes->type == REDIS_REPLY_STRING ? reply_text(*nodes) : "");
    for (const auto& p : map.primaries) {
        const auto found = replicas.find(p.id);
        notes.push_back(primary_note(p, found == replicas.end() ? std::vector<std::string>{} : found->second,
                                     node(p.address)));
    }
    notes.push_back({"cluster replication is asynchronous: a lock acquired just before its primary fails can be lost "
                     "when the replica is promoted, and another instance can then acquire it (fencing tokens keep "
                     "increasing by the server-time floor); see docs/redis-provider.md, Redis Cluster",
                     false});
    return notes;
}

}  // namespace shedlock::providers::detail
