#include "redis_cluster_test_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>

namespace shedlock::test {

providers::redis_cluster_options cluster_test_options(const std::string& prefix_base) {
    const std::string uri = required_env("SHEDLOCK_TEST_REDIS_CLUSTER_URI");
    auto options = providers::redis_cluster_options::from_uri(parse_provider_uri(uri));
    options.node.prefix = unique_prefix(prefix_base);
    return options;
}

std::vector<std::uint16_t> cluster_ports() {
    const auto base = cluster_test_options("ports").seeds.front().port;
    std::vector<std::uint16_t> ports;
    for (std::uint16_t i = 0; i < 6; ++i) ports.push_back(static_cast<std::uint16_t>(base + i));
    return ports;
}

std::unique_ptr<raw_redis> raw_node(std::uint16_t port) {
    auto options = cluster_test_options("raw").node;
    options.host = "127.0.0.1";
    options.port = port;
    return std::make_unique<raw_redis>(options);
}

std::vector<std::uint16_t> primary_ports() {
    std::vector<std::uint16_t> primaries;
    for (auto port : cluster_ports()) {
        try {
            if (raw_node(port)->text({"INFO", "replication"}).find("role:master") != std::string::npos) primaries.push_back(port);
        } catch (const std::exception&) {
            // a node killed by the failover test
        }
    }
    return primaries;
}

std::uint16_t holder_of(const std::string& key) {
    for (auto port : primary_ports())
        if (raw_node(port)->text({"EXISTS", key}) == "1") return port;
    return 0;
}

std::string node_id(std::uint16_t port) { return raw_node(port)->text({"CLUSTER", "MYID"}); }

int node_pid(std::uint16_t port) {
    const std::string dir = required_env("SHEDLOCK_TEST_REDIS_CLUSTER_DIR");
    std::ifstream in(dir + "/node-" + std::to_string(port) + "/pid");
    int pid = 0;
    in >> pid;
    REQUIRE(pid > 0);
    return pid;
}

}  // namespace shedlock::test
