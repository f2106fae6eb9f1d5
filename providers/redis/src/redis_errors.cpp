#include "redis_errors.hpp"

namespace shedlock::providers::detail {
namespace {

/// Script errors arrive wrapped ("ERR Error running script ...: WRONGTYPE ..." on Redis 6,
/// "WRONGTYPE ... script: ..." on 7), so a code counts wherever it starts a word.
bool has_code(std::string_view text, std::string_view code) {
    for (auto pos = text.find(code); pos != std::string_view::npos; pos = text.find(code, pos + 1)) {
        const bool starts_word = pos == 0 || text[pos - 1] == ' ' || text[pos - 1] == '-';
        const bool ends_word = pos + code.size() == text.size() || text[pos + code.size()] == ' ';
        if (starts_word && ends_word) return true;
    }
    return false;
}

/// The scripts write (locks, claims, run records) unless `what` is one of the listing's reads.
std::string permission_advice(const std::string& what) {
    bool read_only = true;
    for (const char* write : {"script", "SCRIPT LOAD", "EVALSHA", "XADD", "XTRIM"})
        if (what.find(write) != std::string::npos) read_only = false;
    if (read_only)
        return "the ACL user lacks a permission; it needs SCAN, GET, HGET, HMGET, PTTL, PEXPIRETIME and TIME "
               "on the lock prefix (e.g. +@read ~<prefix>:*)";
    return "the ACL user lacks a permission for this write; it needs EVALSHA and SCRIPT LOAD, the writes SET, "
           "PEXPIRE, DEL, HSET, SADD, SREM, XADD and XTRIM, the reads GET, HGET, HMGET, PTTL and TIME, and read-write access "
           "to the keys under the prefix (e.g. +@scripting +@read +@write ~<prefix>:*; %R~ gives reads only)";
}

/// "ERR max number of clients reached": the server turned the connection away before any command.
bool refused_for_clients(std::string_view text) {
    return text.find("max number of clients reached") != std::string_view::npos;
}

std::string advice(std::string_view text, const std::string& what) {
    if (has_code(text, "WRONGTYPE"))
        return "a key under the lock prefix holds a non-string value, so it is not a shedlock key; "
               "delete that key or choose another prefix/env";
    if (has_code(text, "OOM"))
        return "Redis reached maxmemory; raise maxmemory, free memory, or use a maxmemory-policy that "
               "evicts other keys (a volatile-* policy may evict live locks)";
    if (has_code(text, "READONLY"))
        return "the server is a read-only replica; point the URI at the primary";
    if (has_code(text, "NOAUTH"))
        return "the server requires a password; give it in the URI (redis://:password@host)";
    if (has_code(text, "WRONGPASS"))
        return "the user name or password was rejected; check the credentials in the URI";
    if (has_code(text, "NOPERM")) return permission_advice(what);
    if (has_code(text, "LOADING")) return "Redis is loading its data set; retry shortly";
    if (has_code(text, "MASTERDOWN")) return "the replica lost its primary; retry when replication is back";
    if (has_code(text, "BUSY")) return "a long-running script blocks Redis; retry later or SCRIPT KILL it";
    if (refused_for_clients(text))
        return "the server has reached maxclients; raise maxclients or lower pool_size of the clients";
    if (text.find("without any password configured") != std::string_view::npos)
        return "the server has no password for this user; remove the password from the URI";
    if (text.find("DB index is out of range") != std::string_view::npos)
        return "use a database index below the server's `databases` setting";
    return "see the Redis reply above";
}

}  // namespace

storage_category classify_reply_error(std::string_view text) {
    if (has_code(text, "WRONGTYPE")) return storage_category::invalid_data;
    for (auto code : {"OOM", "READONLY", "LOADING", "MASTERDOWN"})
        if (has_code(text, code)) return storage_category::unavailable;
    // The server refused the connection itself (it runs nothing for it): safe to retry.
    if (refused_for_clients(text)) return storage_category::unavailable;
    for (auto code : {"NOAUTH", "WRONGPASS", "NOPERM"})
        if (has_code(text, code)) return storage_category::access_denied;
    if (text.find("without any password configured") != std::string_view::npos) return storage_category::access_denied;
    if (has_code(text, "BUSY")) return storage_category::busy;
    return storage_category::other;
}

bool demoted_node_reply(std::string_view text) { return has_code(text, "READONLY") || has_code(text, "MASTERDOWN"); }

std::string shown_reply(std::string_view text, const std::string& what) {
    if (what.rfind("AUTH", 0) != 0) return std::string(text);
    const std::string code(text.substr(0, text.find(' ')));
    return code + " (the rest of the reply is not shown: Redis may repeat AUTH's arguments, the password among them)";
}

storage_error reply_error(std::string_view text, const std::string& what, const std::string& where) {
    const auto category = classify_reply_error(text);
    // A refusal applies nothing (a script that already wrote is never refused by OOM).
    const auto retry = category == storage_category::unavailable ? retry_advice::safe : default_retry_advice(category);
    return storage_error(category, retry,
                         where + " rejected " + what + ": \"" + shown_reply(text, what) + "\"; " + advice(text, what));
}

storage_error io_error(std::string_view detail, const std::string& what, const std::string& where, retry_advice retry) {
    return storage_error(storage_category::unavailable, retry,
                         where + " did not answer " + what + " (" + std::string(detail) +
                             "); check that redis-server is running and reachable; the connection is "
                             "re-established on the next call" +
                             (retry == retry_advice::in_doubt ? std::string("; ") + may_have_been_applied : ""));
}

}  // namespace shedlock::providers::detail
