#include "redis_lock_listing.hpp"

#include "redis_errors.hpp"

#include <charconv>
#include <optional>
#include <set>
#include <string>

namespace shedlock::providers::detail {
namespace {

std::string text_of(const redisReply& reply) { return std::string(reply.str, reply.len); }

void scan_into(redis_connection& connection, const redis_keys& keys, const std::string& pattern,
               std::set<std::string>& names);

std::set<std::string> scan_names(redis_connection& connection, const redis_keys& keys) {
    std::set<std::string> names;
    connection.for_each_primary([&](redis_connection& node) {  // a cluster's keys: on every primary
        for (const std::string& pattern : keys.scan_patterns()) scan_into(node, keys, pattern, names);
    });
    return names;
}

void scan_into(redis_connection& connection, const redis_keys& keys, const std::string& pattern,
               std::set<std::string>& names) {
    std::string cursor = "0";
    do {
        auto reply = connection.checked({"SCAN", cursor, "MATCH", pattern, "COUNT", "500"}, "SCAN");
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2)
            throw storage_error(storage_category::other, connection.where() + " answered SCAN with an unexpected reply");
        cursor = text_of(*reply->element[0]);
        const redisReply& found = *reply->element[1];
        for (std::size_t i = 0; i < found.elements; ++i)
            if (auto name = keys.name_of(text_of(*found.element[i]))) names.insert(std::move(*name));
    } while (cursor != "0");
}


const redisReply& value_of(const reply_ptr& reply, const redis_connection& connection, const char* what) {
    if (reply->type == REDIS_REPLY_ERROR) throw reply_error(text_of(*reply), what, connection.where());
    return *reply;
}

std::optional<std::int64_t> fence_of(const redisReply& reply, const std::string& key, const redis_connection& connection) {
    if (reply.type != REDIS_REPLY_STRING) return std::nullopt;
    try {
        return std::stoll(text_of(reply));
    } catch (const std::exception&) {
        throw storage_error(storage_category::invalid_data, connection.where() + ": fence key \"" + key +
                                                                "\" does not hold a number; delete it or choose another prefix");
    }
}

/// A bulk string of decimal digits no larger than `max`, or nothing.
std::optional<std::int64_t> decimal_field(const redisReply& element, std::int64_t max) {
    if (element.type != REDIS_REPLY_STRING || element.len == 0) return std::nullopt;
    std::int64_t value = 0;
    const char* end = element.str + element.len;
    const auto [at, error] = std::from_chars(element.str, end, value);
    if (error != std::errc{} || at != end || value < 0 || value > max) return std::nullopt;
    return value;
}

}  // namespace

timestamp redis_server_time(redis_connection& connection) {
    auto reply = connection.checked({"TIME"}, "TIME");
    // Bounds before arithmetic: seconds up to the year 9999 (no overflow of milliseconds), and
    // micros below a second. Anything else is not a Redis TIME reply.
    constexpr std::int64_t max_seconds = 253'402'300'799;
    const auto seconds = reply->type == REDIS_REPLY_ARRAY && reply->elements == 2
                             ? decimal_field(*reply->element[0], max_seconds)
                             : std::nullopt;
    const auto micros = seconds ? decimal_field(*reply->element[1], 999'999) : std::nullopt;
    if (!micros)
        throw storage_error(storage_category::invalid_data,
                            connection.where() + " answered TIME with something other than two numbers (seconds, "
                                                 "microseconds); is it a Redis server?");
    return timestamp{std::chrono::milliseconds{*seconds * 1000 + *micros / 1000}};
}

std::vector<lock_record> list_redis_locks(redis_connection& connection, const redis_keys& keys) {
    const auto names = scan_names(connection, keys);
    const timestamp now = redis_server_time(connection);
    std::vector<std::string> key_text;  // owns the keys the pipeline's views point at
    key_text.reserve(names.size() * 2);
    std::vector<std::vector<std::string_view>> commands;
    for (const auto& name : names) {
        const std::string& lock = key_text.emplace_back(keys.lock_key(name));
        const std::string& fence = key_text.emplace_back(keys.fence_key(name));
        commands.push_back({"GET", lock});
        commands.push_back({"PEXPIRETIME", lock});
        commands.push_back({"PTTL", lock});
        commands.push_back({"GET", fence});
    }
    const auto replies = connection.pipeline(commands, "reading lock keys");
    std::vector<lock_record> records;
    std::size_t i = 0;
    for (const auto& name : names) {
        const redisReply& owner = value_of(replies[i], connection, "GET of a lock key");
        const redisReply& expire_at = *replies[i + 1];  // an error before Redis 7: fall back to PTTL
        const redisReply& ttl = value_of(replies[i + 2], connection, "PTTL");
        const redisReply& fence = value_of(replies[i + 3], connection, "GET of a fence key");
        lock_record record{name, "", now, now, fence_of(fence, keys.fence_key(name), connection), ""};
        if (owner.type == REDIS_REPLY_STRING) {
            record.locked_by = text_of(owner);
            if (expire_at.type == REDIS_REPLY_INTEGER && expire_at.integer > 0)
                record.lock_until = timestamp{std::chrono::milliseconds{expire_at.integer}};
            else if (ttl.integer > 0)
                record.lock_until = now + std::chrono::milliseconds{ttl.integer};
        }
        records.push_back(std::move(record));
        i += 4;
    }
    return records;
}

}  // namespace shedlock::providers::detail
