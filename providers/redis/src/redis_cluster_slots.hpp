#pragma once
// Redis Cluster's key space: the slot of a key (CRC16 of its hash tag), the key a command is
// routed by, and the slot map a node reports (CLUSTER SLOTS).

#include <hiredis/hiredis.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

inline constexpr std::size_t cluster_slot_count = 16384;

/// CRC16-CCITT (XModem), the checksum Redis Cluster hashes keys with.
std::uint16_t crc16_xmodem(std::string_view bytes);
/// The slot of `key`: CRC16 of the text between the first '{' and the next '}' when that is not
/// empty (the hash tag), else of the whole key; modulo 16384.
std::uint16_t key_slot(std::string_view key);

/// The key a command is routed by: EVALSHA/EVAL's first key, none for keyless commands (SCRIPT,
/// TIME, SCAN, INFO, CLUSTER, ...), else the first argument.
std::optional<std::string_view> routing_key(const std::vector<std::string_view>& command);

/// A node's address as the cluster announces it.
struct cluster_address {
    std::string host;
    std::uint16_t port = 0;

    std::string text() const { return host + ":" + std::to_string(port); }
    bool operator==(const cluster_address& o) const { return host == o.host && port == o.port; }
    bool operator<(const cluster_address& o) const { return text() < o.text(); }
};

/// "host:port" (the address in a MOVED or ASK reply); empty when it does not parse.
std::optional<cluster_address> parse_cluster_address(std::string_view text);

/// One primary and the slots it serves.
struct cluster_primary {
    cluster_address address;
    std::string id;  ///< the node ID (CLUSTER MYID)
    std::vector<cluster_address> replicas;  ///< as CLUSTER SLOTS lists them (synced ones)
    std::vector<std::pair<std::uint16_t, std::uint16_t>> ranges;  ///< inclusive slot ranges
};

/// Which primary serves each slot.
struct slot_map {
    std::vector<cluster_primary> primaries;
    /// Index into primaries per slot; -1: no primary serves it (cluster_state fail).
    std::array<std::int16_t, cluster_slot_count> owner{};

    slot_map() { owner.fill(-1); }
    std::size_t covered() const;
    /// Points `slot` at `address` (a MOVED reply), adding the primary when it is new.
    void assign(std::uint16_t slot, const cluster_address& address);
};

/// The map in a CLUSTER SLOTS reply from `queried` (an empty host means that node's host).
/// Throws storage_error(invalid_data) naming `where` for a reply of another shape.
slot_map parse_cluster_slots(const redisReply& reply, const cluster_address& queried, const std::string& where);

}  // namespace shedlock::providers::detail
