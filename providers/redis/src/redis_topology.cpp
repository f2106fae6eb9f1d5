#include "redis_topology.hpp"

#include "redis_sentinel.hpp"

#include <shedlock/error.hpp>

#include <map>
#include <optional>
#include <string>

namespace shedlock::providers::detail {
namespace {

/// INFO's "field:value" lines.
std::map<std::string, std::string> info_fields(redis_connection& connection, const char* section) {
    const auto reply = connection.checked({"INFO", section}, "INFO");
    std::map<std::string, std::string> fields;
    if (reply->type != REDIS_REPLY_STRING) return fields;
    const std::string text(reply->str, reply->len);
    for (std::size_t start = 0; start < text.size();) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto colon = line.find(':');
        if (colon != std::string::npos && line[0] != '#') fields[line.substr(0, colon)] = line.substr(colon + 1);
        start = end + 1;
    }
    return fields;
}

std::string field(const std::map<std::string, std::string>& f, const std::string& key) {
    const auto it = f.find(key);
    return it == f.end() ? std::string() : it->second;
}

topology_note sentinel_note(const redis_options& o) {
    int reachable = 0, agreeing = 0;
    std::optional<sentinel_answer> first;
    for (const auto& s : o.sentinels) {
        const auto reply = ask_sentinel(o, s);
        reachable += reply.reached ? 1 : 0;
        if (!reply.address) continue;
        if (!first) first = reply.address;
        if (reply.address->host == first->host && reply.address->port == first->port) ++agreeing;
    }
    const std::string named = first ? first->host + ":" + std::to_string(first->port) + " (named by sentinel " +
                                          first->sentinel + ")"
                                    : "(none named)";
    const int total = static_cast<int>(o.sentinels.size());
    const bool majority = reachable * 2 > total;
    return {"sentinel: primary \"" + o.sentinel_master + "\" at " + named + "; " +
                std::to_string(reachable) + " of " + std::to_string(total) + " sentinels reachable, " +
                std::to_string(agreeing) + " name this primary" +
                (majority ? "" : "; without a majority of the sentinels no failover can be authorised"),
            !majority || !first};
}

topology_note replication_note(const std::map<std::string, std::string>& repl, const redis_options& o) {
    const std::string replicas = field(repl, "connected_slaves");
    const int count = replicas.empty() ? 0 : std::stoi(replicas);
    if (count == 0)
        return {"replication: no replica connected (a failover has nothing to promote)" +
                    std::string(o.wait_replicas > 0 ? "; wait_replicas=" + std::to_string(o.wait_replicas) +
                                                           " makes every acquisition fail"
                                                     : ""),
                o.wait_replicas > 0};
    if (o.wait_replicas == 0)
        return {"replication: " + replicas +
                    " replica(s), asynchronous: an acquisition a failover did not copy is lost, so two holders can "
                    "overlap (fencing tokens stay increasing: the TIME floor); wait_replicas=1 prevents it",
                true};
    return {"replication: " + replicas + " replica(s); wait_replicas=" + std::to_string(o.wait_replicas) +
                " confirms each acquisition on them" +
                (o.wait_replicas > count ? " (more than are connected: every acquisition fails)" : ""),
            o.wait_replicas > count};
}

topology_note persistence_note(redis_connection& connection, const std::map<std::string, std::string>& persistence) {
    const bool aof = field(persistence, "aof_enabled") == "1";
    auto save = connection.command({"CONFIG", "GET", "save"}, "CONFIG GET save");
    if (save->type != REDIS_REPLY_ARRAY || save->elements != 2)
        return {std::string("persistence: AOF ") + (aof ? "on" : "off") + ", RDB snapshots unknown (CONFIG GET denied)",
                false};
    const std::string rules(save->element[1]->str, save->element[1]->len);
    if (!aof && rules.empty())
        return {"persistence: none (no AOF, no RDB save rules): a restart forgets every held lock and fencing counter; "
                "appendonly yes keeps them",
                true};
    return {std::string("persistence: AOF ") + (aof ? "on" : "off") + ", RDB save rules \"" + rules + "\"" +
                (aof ? "" : ": a restart forgets acquisitions since the last snapshot")};
}

topology_note eviction_note(const std::map<std::string, std::string>& memory) {
    const std::string policy = field(memory, "maxmemory_policy");
    const std::string limit = field(memory, "maxmemory");
    if (policy == "noeviction" || limit == "0" || limit.empty())
        return {"eviction: maxmemory " + (limit.empty() ? std::string("?") : limit) + ", policy " + policy +
                ": lock keys are never evicted"};
    return {"eviction: maxmemory " + limit + " with maxmemory-policy " + policy +
                ": Redis may evict a held lock key (lock keys carry a TTL, so volatile-* policies pick them too); "
                "use noeviction",
            true};
}

}  // namespace

std::vector<topology_note> redis_topology(redis_connection& connection, const redis_options& options) {
    std::vector<topology_note> notes;
    const auto repl = info_fields(connection, "replication");
    const std::string role = field(repl, "role");
    if (role == "master") notes.push_back({"role: primary (" + connection.where() + ")"});
    else
        notes.push_back({"role: " + role + " (" + connection.where() +
                             "): no lock can be taken here; point the URI at the primary or use redis-sentinel://",
                         true});
    if (!options.sentinels.empty()) notes.push_back(sentinel_note(options));
    notes.push_back(replication_note(repl, options));
    notes.push_back(persistence_note(connection, info_fields(connection, "persistence")));
    notes.push_back(eviction_note(info_fields(connection, "memory")));
    return notes;
}

}  // namespace shedlock::providers::detail
