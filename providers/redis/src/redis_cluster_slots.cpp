#include "redis_cluster_slots.hpp"

#include <shedlock/error.hpp>

#include <algorithm>
#include <cctype>

namespace shedlock::providers::detail {
namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

bool keyless(const std::string& name) {
    for (const char* k : {"SCRIPT", "TIME", "SCAN", "INFO", "CLUSTER", "PING", "ROLE", "ASKING", "CONFIG", "DBSIZE", "WAIT",
                          "AUTH", "SELECT"})
        if (name == k) return true;
    return false;
}

[[noreturn]] void bad_slots(const std::string& where) {
    throw storage_error(storage_category::invalid_data,
                        where + " answered CLUSTER SLOTS with an unexpected reply; is it a Redis Cluster node "
                                "(cluster-enabled yes)?");
}

/// A host name is at most 253 bytes without spaces or control bytes: anything else from a node
/// is not an address (it would be copied into every message, or cut at a NUL by the connect).
bool plausible_host(std::string_view host) {
    return !host.empty() && host.size() <= 253 && std::none_of(host.begin(), host.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u == 0x7f;
    });
}

/// The node's address; empty for port 0, which is how Redis lists a node whose address it does
/// not know ("noaddr": a primary that vanished, its failover not yet done).
std::optional<cluster_address> address_of(const redisReply& node, const cluster_address& queried,
                                          const std::string& where) {
    if (node.type != REDIS_REPLY_ARRAY || node.elements < 2 || node.element[0]->type != REDIS_REPLY_STRING ||
        node.element[1]->type != REDIS_REPLY_INTEGER)
        bad_slots(where);
    std::string host(node.element[0]->str, node.element[0]->len);
    const long long port = node.element[1]->integer;  // 70000 would wrap to another node's port
    if (port == 0) return std::nullopt;
    if (host.empty()) host = queried.host;  // "the node you asked" (Redis 7 with an unknown endpoint)
    if (!plausible_host(host) || port < 1 || port > 65535) bad_slots(where);
    return cluster_address{host, static_cast<std::uint16_t>(port)};
}

std::int16_t index_of(slot_map& map, const cluster_address& address) {
    for (std::size_t i = 0; i < map.primaries.size(); ++i)
        if (map.primaries[i].address == address) return static_cast<std::int16_t>(i);
    map.primaries.push_back({address, {}, {}, {}});
    return static_cast<std::int16_t>(map.primaries.size() - 1);
}

}  // namespace

std::uint16_t crc16_xmodem(std::string_view bytes) {
    std::uint16_t crc = 0;
    for (unsigned char byte : bytes) {
        crc = static_cast<std::uint16_t>(crc ^ (byte << 8));
        for (int bit = 0; bit < 8; ++bit)
            crc = static_cast<std::uint16_t>((crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

std::uint16_t key_slot(std::string_view key) {
    const auto open = key.find('{');
    if (open != std::string_view::npos) {
        const auto close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
    }
    return static_cast<std::uint16_t>(crc16_xmodem(key) % cluster_slot_count);
}

std::optional<std::string_view> routing_key(const std::vector<std::string_view>& command) {
    if (command.size() < 2) return std::nullopt;
    const std::string name = upper(command[0]);
    if (name == "EVALSHA" || name == "EVAL") {
        if (command.size() < 4 || command[2] == "0") return std::nullopt;
        return command[3];
    }
    if (keyless(name)) return std::nullopt;
    return command[1];
}

std::optional<cluster_address> parse_cluster_address(std::string_view text) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || !plausible_host(text.substr(0, colon))) return std::nullopt;
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    const int number = std::stoi(std::string(port));
    if (number < 1 || number > 65535) return std::nullopt;
    return cluster_address{std::string(text.substr(0, colon)), static_cast<std::uint16_t>(number)};
}

std::size_t slot_map::covered() const {
    return static_cast<std::size_t>(std::count_if(owner.begin(), owner.end(), [](std::int16_t o) { return o >= 0; }));
}

void slot_map::assign(std::uint16_t slot, const cluster_address& address) {
    owner[slot] = index_of(*this, address);
}

slot_map parse_cluster_slots(const redisReply& reply, const cluster_address& queried, const std::string& where) {
    // More ranges than slots cannot be a real map (and more primaries than an int16_t owner
    // index holds would wrap it).
    if (reply.type != REDIS_REPLY_ARRAY || reply.elements > cluster_slot_count) bad_slots(where);
    slot_map map;
    for (std::size_t i = 0; i < reply.elements; ++i) {
        const redisReply& range = *reply.element[i];
        if (range.type != REDIS_REPLY_ARRAY || range.elements < 3 || range.element[0]->type != REDIS_REPLY_INTEGER ||
            range.element[1]->type != REDIS_REPLY_INTEGER)
            bad_slots(where);
        const auto first = range.element[0]->integer, last = range.element[1]->integer;
        if (first < 0 || last < first || last >= static_cast<long long>(cluster_slot_count)) bad_slots(where);
        const auto address = address_of(*range.element[2], queried, where);
        if (!address) continue;  // no known primary: these slots stay unserved, the others work
        const std::int16_t owner = index_of(map, *address);
        auto& primary = map.primaries[static_cast<std::size_t>(owner)];
        const redisReply& node = *range.element[2];
        if (node.elements >= 3 && node.element[2]->type == REDIS_REPLY_STRING)
            primary.id.assign(node.element[2]->str, node.element[2]->len);
        primary.ranges.emplace_back(static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(last));
        for (std::size_t r = 3; r < range.elements; ++r) {
            const auto replica = address_of(*range.element[r], queried, where);
            if (replica && std::find(primary.replicas.begin(), primary.replicas.end(), *replica) == primary.replicas.end())
                primary.replicas.push_back(*replica);
        }
        for (auto slot = first; slot <= last; ++slot) {
            auto& served_by = map.owner[static_cast<std::size_t>(slot)];
            if (served_by >= 0) bad_slots(where);  // two ranges claim one slot: no primary is sure
            served_by = owner;
        }
    }
    return map;
}

}  // namespace shedlock::providers::detail
