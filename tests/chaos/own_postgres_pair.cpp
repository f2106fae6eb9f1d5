#include "own_postgres_pair.hpp"

#include <string>

namespace shedlock::chaos {
namespace {

std::string pair_start_arguments(bool synchronous, std::pair<int, int> ports, const std::string& delay_proxy,
                            std::pair<int, int> relay_ports, std::chrono::microseconds lag) {
    std::string arguments =
        std::string(synchronous ? "sync " : "async ") + std::to_string(ports.first) + " " + std::to_string(ports.second);
    if (!delay_proxy.empty())
        arguments += " '" + delay_proxy + "' " + std::to_string(relay_ports.first) + " " +
                     std::to_string(relay_ports.second) + " " + std::to_string(lag.count());
    return arguments;
}

}  // namespace

own_postgres_pair::own_postgres_pair(std::string script, std::string dir, bool synchronous, std::pair<int, int> ports,
                                     const std::string& delay_proxy, std::pair<int, int> relay_ports,
                                     std::chrono::microseconds lag)
    : port_a_(ports.first), port_b_(ports.second),
      pair_(std::move(script), std::move(dir), "", "pair.log",
            pair_start_arguments(synchronous, ports, delay_proxy, relay_ports, lag)) {}

std::string own_postgres_pair::uri(const std::string& query) const {
    return "postgresql://shedlock:shedlock-test-pw@" + loopback_hosts({port_a_, port_b_}) + "/shedlock_test?" + query;
}

void own_postgres_pair::fail_over() { pair_.run("fail_over"); }

void own_postgres_pair::rejoin() { pair_.run("rejoin"); }

}  // namespace shedlock::chaos
