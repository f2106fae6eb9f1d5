#include "redis_keys.hpp"
#include "redis_sentinel.hpp"

#include <shedlock/error.hpp>
#include <shedlock/uri_password.hpp>

#include <algorithm>

namespace shedlock::providers {
namespace detail {
namespace {

[[noreturn]] void invalid(const std::string& what, const std::string& fix) {
    throw configuration_error("redis option " + what + " is invalid; " + fix);
}

void check_key_part(const std::string& field, const std::string& value) {
    const bool bad = std::any_of(value.begin(), value.end(), [](char c) {
        return c == '{' || c == '}' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (bad) invalid(field + "=\"" + value + "\"", "it must not contain braces or control characters (braces are Redis Cluster hash tags)");
    if (value.size() > 100) invalid(field + " (" + std::to_string(value.size()) + " characters)", "use at most 100 characters");
}

}  // namespace

void validate_redis_options(const redis_options& o) {
    if (!o.sentinels.empty() || !o.sentinel_master.empty()) validate_sentinel_options(o);
    if (o.host.empty()) invalid("host (empty)", "give the Redis host, e.g. redis://127.0.0.1:6379");
    if (o.host.find(',') != std::string::npos)
        invalid("host \"" + o.host + "\" (a list)", "name one server, or list sentinels in a redis-sentinel:// URI");
    if (o.port == 0) invalid("port=0", "use a port from 1 to 65535");
    if (o.db < 0 || o.db > 65535) invalid("db=" + std::to_string(o.db), "use a database index from 0 to 65535");
    check_key_part("prefix", o.prefix);
    check_key_part("env", o.env);
    if (o.connect_timeout.count() <= 0)
        invalid("connect_timeout=" + std::to_string(o.connect_timeout.count()) + "ms", "use a positive duration such as 2s");
    if (o.command_timeout.count() <= 0)
        invalid("command_timeout=" + std::to_string(o.command_timeout.count()) + "ms", "use a positive duration such as 1s");
    if (o.wait_replicas < 0 || o.wait_replicas > 64)
        invalid("wait_replicas=" + std::to_string(o.wait_replicas), "use 0 (no WAIT) to 64 replicas");
    if (o.wait_timeout.count() < 0 || (o.wait_replicas > 0 && effective_wait_timeout(o) >= o.command_timeout))
        invalid("wait_timeout=" + std::to_string(effective_wait_timeout(o).count()) + "ms",
                "use a duration below command_timeout=" + std::to_string(o.command_timeout.count()) +
                    "ms (WAIT runs within one command's round trip), or raise command_timeout");
    if (o.pool_size < 1 || o.pool_size > 64) invalid("pool_size=" + std::to_string(o.pool_size), "use 1 to 64 connections");
}

std::chrono::milliseconds effective_wait_timeout(const redis_options& o) {
    return o.wait_timeout.count() > 0 ? o.wait_timeout : o.command_timeout / 2;
}

}  // namespace detail

namespace {

/// redis://host:port/db
void read_server_address(const provider_uri& uri, redis_options& o) {
    if (!uri.host.empty()) o.host = uri.host;
    if (uri.port) o.port = *uri.port;
    if (uri.path.empty()) return;
    if (uri.path.size() > 5 || uri.path.find_first_not_of("0123456789") != std::string::npos)
        throw configuration_error("provider URI \"" + uri.redacted() + "\": database \"" + uri.path +
                                  "\" is not a number; write redis://host:6379/0");
    o.db = std::stoi(uri.path);
}

}  // namespace

redis_options redis_options_from_uri(const provider_uri& uri) {
    const bool sentinel = uri.scheme == "redis-sentinel";
    if (uri.scheme != "redis" && !sentinel)
        throw configuration_error("provider URI \"" + uri.redacted() + "\" is not a redis:// URI" +
                                  (uri.scheme == "rediss" ? " (TLS is not supported by this build; use redis:// over a trusted network or a TLS tunnel)" : ""));
    redis_options o;
    uri_options q(uri);
    if (sentinel) detail::read_sentinel_uri(uri, q, o);
    else read_server_address(uri, o);
    o.user = uri.user;
    o.password = read_uri_password(uri, q);
    if (auto v = q.text("prefix")) o.prefix = *v;
    if (auto v = q.text("env")) o.env = *v;
    if (auto v = q.duration("connect_timeout")) o.connect_timeout = *v;
    if (auto v = q.duration("command_timeout")) o.command_timeout = *v;
    if (auto v = q.integer("pool_size", 1, 64)) o.pool_size = static_cast<std::size_t>(*v);
    if (auto v = q.flag("java_compat")) o.java_compat = *v;
    if (auto v = q.flag("fencing")) o.fencing = *v;
    if (auto v = q.integer("wait_replicas", 0, 64)) o.wait_replicas = static_cast<int>(*v);
    if (auto v = q.duration("wait_timeout")) o.wait_timeout = *v;
    q.finish();
    detail::validate_redis_options(o);
    return o;
}

redis_options redis_options::from_uri(const provider_uri& uri) { return redis_options_from_uri(uri); }

}  // namespace shedlock::providers
