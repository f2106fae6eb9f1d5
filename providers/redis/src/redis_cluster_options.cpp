// redis-cluster:// URIs: the seed list and max_redirects here; every other option is the
// redis:// parser's, run on the same URI with the scheme and host it expects.
#include "redis_cluster_state.hpp"
#include "redis_keys.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_cluster.hpp>

#include <algorithm>

namespace shedlock::providers {
namespace {

[[noreturn]] void refuse(const provider_uri& uri, const std::string& what) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + what);
}

constexpr const char* seed_example = "write e.g. 127.0.0.1:7000 or [::1]:7000";

std::uint16_t seed_port(const provider_uri& uri, const std::string& seed, const std::string& port) {
    const bool number = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    if (!number || std::stoi(port) < 1 || std::stoi(port) > 65535)
        refuse(uri, "seed \"" + seed + "\" is not host:port with a port from 1 to 65535; " + seed_example);
    return static_cast<std::uint16_t>(std::stoi(port));
}

/// "host", "host:port", "[v6]" or "[v6]:port". An unbracketed IPv6 address is refused: in
/// "::1:7000" nobody can tell whether 7000 is the port.
redis_cluster_seed parse_seed(const provider_uri& uri, const std::string& text) {
    if (text.empty()) refuse(uri, "an empty seed in the host list; write redis-cluster://host1:6379,host2:6379");
    if (text.front() == '[') {
        const auto close = text.find(']');
        const bool tail_ok = close != std::string::npos && (close + 1 == text.size() || text[close + 1] == ':');
        if (!tail_ok || close == 1) refuse(uri, "seed \"" + text + "\" is not [IPv6]:port; " + seed_example);
        const std::string host = text.substr(1, close - 1);
        return {host, close + 1 == text.size() ? std::uint16_t{6379} : seed_port(uri, text, text.substr(close + 2))};
    }
    const auto colon = text.find(':');
    if (colon != std::string::npos && text.find(':', colon + 1) != std::string::npos)
        refuse(uri, "seed \"" + text + "\" looks like an IPv6 address without brackets; " + seed_example);
    if (colon == 0) refuse(uri, "seed \"" + text + "\" has no host; " + seed_example);
    if (colon == std::string::npos) return {text, 6379};
    return {text.substr(0, colon), seed_port(uri, text, text.substr(colon + 1))};
}

std::vector<redis_cluster_seed> parse_seeds(const provider_uri& uri) {
    if (uri.host.empty()) refuse(uri, "no seed node; write redis-cluster://host1:6379,host2:6379");
    if (uri.host.find(',') == std::string::npos) return {{uri.host, uri.port.value_or(6379)}};
    // A host list: the URI parser keeps it whole, or (older parsers) splits the last port off.
    const std::string list = uri.host + (uri.port ? ":" + std::to_string(*uri.port) : "");
    std::vector<redis_cluster_seed> seeds;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto comma = std::min(list.find(',', start), list.size());
        seeds.push_back(parse_seed(uri, list.substr(start, comma - start)));
        start = comma + 1;
    }
    return seeds;
}

/// A cluster has database 0 only: SELECT of another fails on every node.
void check_database(const provider_uri& uri) {
    if (uri.path.empty() || uri.path == "0") return;
    refuse(uri, "database \"" + uri.path + "\": a Redis Cluster has only database 0; remove \"/" + uri.path +
                    "\" or write /0");
}

}  // namespace

namespace detail {

void validate_cluster_options(const redis_cluster_options& o) {
    const auto bad = [](const std::string& what, const std::string& fix) {
        throw configuration_error("redis cluster option " + what + " is invalid; " + fix);
    };
    if (o.seeds.empty()) bad("seeds (none given)", "give at least one host:port of the cluster");
    // Each unanswering seed costs a connect_timeout before the next is tried: a bound keeps a
    // call that finds no node bounded too.
    if (o.seeds.size() > max_cluster_seeds)
        bad("seeds (" + std::to_string(o.seeds.size()) + " given)",
            "list at most " + std::to_string(max_cluster_seeds) + " seeds (two or three are enough: the map names the rest)");
    for (std::size_t i = 0; i < o.seeds.size(); ++i) {
        const auto& s = o.seeds[i];
        const std::string text = s.host + ":" + std::to_string(s.port);
        if (s.host.empty() || s.port == 0) bad("seed \"" + text + "\"", "give a host and a port from 1 to 65535");
        for (std::size_t j = 0; j < i; ++j)
            if (o.seeds[j].host == s.host && o.seeds[j].port == s.port)
                bad("seed " + text + " (listed twice)", "list each seed once");
    }
    if (o.max_redirects < 1 || o.max_redirects > 16)
        bad("max_redirects=" + std::to_string(o.max_redirects), "give a whole number from 1 to 16");
}

}  // namespace detail

redis_cluster_options redis_cluster_options_from_uri(const provider_uri& uri) {
    if (uri.scheme != "redis-cluster")
        throw configuration_error("provider URI \"" + uri.redacted() + "\" is not a redis-cluster:// URI");
    check_database(uri);
    redis_cluster_options o;
    o.seeds = parse_seeds(uri);
    provider_uri single = uri;  // the redis:// options, read by the redis:// parser
    single.scheme = "redis";
    single.host = o.seeds.front().host;
    single.port = o.seeds.front().port;
    single.path.clear();
    single.query.erase("max_redirects");
    uri_options q(uri);
    if (auto v = q.integer("max_redirects", 1, 16)) o.max_redirects = static_cast<int>(*v);
    try {
        detail::validate_cluster_options(o);
    } catch (const configuration_error& e) {
        refuse(uri, e.what());
    }
    try {
        o.node = redis_options_from_uri(single);
    } catch (const configuration_error& e) {
        // Its message names the single-server URI; name the one the user wrote.
        std::string text = e.what();
        const std::string shown = single.redacted();
        for (auto at = text.find(shown); at != std::string::npos; at = text.find(shown, at + 1))
            text.replace(at, shown.size(), uri.redacted());
        throw configuration_error(text);
    }
    return o;
}

redis_cluster_options redis_cluster_options::from_uri(const provider_uri& uri) {
    return redis_cluster_options_from_uri(uri);
}

}  // namespace shedlock::providers
