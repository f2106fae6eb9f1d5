// redis-sentinel:// URIs: the sentinel list, the master name and the sentinels' credentials.
#include "redis_sentinel.hpp"

#include <shedlock/error.hpp>
#include <shedlock/uri_password.hpp>

#include <algorithm>
#include <string_view>

namespace shedlock::providers::detail {
namespace {

[[noreturn]] void refuse(const provider_uri& uri, const std::string& what, const std::string& fix) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + what + "; " + fix);
}

constexpr const char* example = "write redis-sentinel://s1:26379,s2:26379,s3:26379/mymaster";

std::uint16_t sentinel_port(const provider_uri& uri, std::string_view text) {
    const bool digits = !text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string_view::npos;
    const int port = digits ? std::stoi(std::string(text)) : 0;
    if (port < 1 || port > 65535)
        refuse(uri, "sentinel port \"" + std::string(text) + "\" is not a number from 1 to 65535", example);
    return static_cast<std::uint16_t>(port);
}

/// "host", "host:port" or "[::1]:port".
redis_sentinel_address sentinel_address(const provider_uri& uri, std::string_view item) {
    redis_sentinel_address a;
    std::string_view port;
    if (!item.empty() && item.front() == '[') {
        const auto close = item.find(']');
        if (close == std::string_view::npos) refuse(uri, "sentinel \"" + std::string(item) + "\" has no closing ']'", example);
        a.host = std::string(item.substr(1, close - 1));
        if (close + 1 < item.size()) {
            if (item[close + 1] != ':') refuse(uri, "unexpected text after ']' in \"" + std::string(item) + "\"", example);
            port = item.substr(close + 2);
            a.port = sentinel_port(uri, port);
        }
    } else {
        const auto colon = item.find(':');
        a.host = std::string(item.substr(0, colon));
        if (colon != std::string_view::npos) a.port = sentinel_port(uri, item.substr(colon + 1));
    }
    if (a.host.empty()) refuse(uri, "an empty sentinel host in the list", example);
    return a;
}

std::vector<redis_sentinel_address> sentinel_list(const provider_uri& uri) {
    if (uri.host.find(',') == std::string::npos) {  // one sentinel: the core parser split its port
        if (uri.host.empty()) refuse(uri, "no sentinel host", example);
        return {{uri.host, uri.port.value_or(26379)}};
    }
    std::vector<redis_sentinel_address> out;
    std::string_view rest = uri.host;
    while (true) {
        const auto comma = rest.find(',');
        out.push_back(sentinel_address(uri, rest.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

bool same(const redis_sentinel_address& a, const redis_sentinel_address& b) { return a.host == b.host && a.port == b.port; }

}  // namespace

void read_sentinel_uri(const provider_uri& uri, uri_options& query, redis_options& o) {
    o.sentinels = sentinel_list(uri);
    o.sentinel_master = uri.path;
    if (auto v = query.integer("db", 0, 65535)) o.db = static_cast<int>(*v);
    if (auto v = query.text("sentinel_user")) o.sentinel_user = *v;
    o.sentinel_password = read_uri_secret(uri, query, "sentinel_password");
}

void validate_sentinel_options(const redis_options& o) {
    const auto bad = [](const std::string& what, const std::string& fix) {
        throw configuration_error("redis option " + what + " is invalid; " + fix);
    };
    if (o.sentinels.empty())
        bad("sentinel_master=\"" + o.sentinel_master + "\" without sentinels",
            "list the sentinels too (redis_options::sentinels), or clear sentinel_master for a direct connection");
    if (o.sentinels.size() > max_sentinels)
        bad("sentinels (" + std::to_string(o.sentinels.size()) + " given)",
            "list at most " + std::to_string(max_sentinels) + " sentinels (three or five is usual)");
    for (std::size_t i = 0; i < o.sentinels.size(); ++i) {
        const auto& s = o.sentinels[i];
        if (s.host.empty() || s.port == 0) bad("sentinel \"" + s.host + ":" + std::to_string(s.port) + "\"", example);
        for (std::size_t j = 0; j < i; ++j)
            if (same(s, o.sentinels[j]))
                bad("sentinel " + s.host + ":" + std::to_string(s.port) + " (listed twice)", "list each sentinel once");
    }
    if (o.sentinel_master.empty()) bad("master name (missing)", "give the name the sentinels monitor: " + std::string(example));
    const bool odd = std::any_of(o.sentinel_master.begin(), o.sentinel_master.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u == 0x7f || c == '/' || c == '"';
    });
    if (odd || o.sentinel_master.size() > 100)
        bad("master name \"" + o.sentinel_master + "\"",
            "use the name from the sentinels' `sentinel monitor <name> ...` line (at most 100 characters, no spaces, "
            "control characters, '/' or quotes)");
}

std::string describe_sentinels(const redis_options& o) {
    std::string out;
    for (const auto& s : o.sentinels) out += (out.empty() ? "" : ",") + s.host + ":" + std::to_string(s.port);
    return out;
}

redis_options primary_options(const redis_options& o, const sentinel_answer& where) {
    redis_options direct = o;
    direct.sentinels.clear();
    direct.host = where.host;
    direct.port = where.port;
    return direct;
}

redis_options sentinel_connection_options(const redis_options& o, const redis_sentinel_address& sentinel) {
    redis_options s;
    s.host = sentinel.host;
    s.port = sentinel.port;
    s.user = o.sentinel_user;
    s.password = o.sentinel_password;
    s.connect_timeout = o.connect_timeout;
    // A sentinel's answer is bounded like its connect: each sentinel costs at most that long.
    s.command_timeout = o.connect_timeout;
    return s;
}

}  // namespace shedlock::providers::detail
