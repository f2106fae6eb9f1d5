// redis-cluster:// URIs: the seed list and max_redirects here; every other option is the
// redis:// parser's, run on the same URI with the scheme and host it expects.
#include "redis_keys.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_cluster.hpp>

#include <algorithm>

namespace shedlock::providers {
namespace {

[[noreturn]] void refuse(const provider_uri& uri, const std::string& what) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + what);
}

redis_cluster_seed parse_seed(const provider_uri& uri, const std::string& text) {
    if (text.empty()) refuse(uri, "an empty seed in the host list; write redis-cluster://host1:6379,host2:6379");
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) return {text, 6379};
    const std::string host = text.substr(0, colon), port = text.substr(colon + 1);
    const bool number = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    if (host.empty() || !number || std::stoi(port) < 1 || std::stoi(port) > 65535)
        refuse(uri, "seed \"" + text + "\" is not host:port with a port from 1 to 65535; write e.g. 127.0.0.1:7000");
    return {host, static_cast<std::uint16_t>(std::stoi(port))};
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
