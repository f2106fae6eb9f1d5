#include "own_redis_sentinel.hpp"

namespace shedlock::chaos {
namespace {

// The sentinels' down-after: sentinel.sh's 1000 ms was tripped by the load of a full test pass
// (a failover nobody injected, so none the analysis could excuse); 3 s still makes a failover of
// a few seconds.
constexpr int down_after_ms = 3000;

}  // namespace

own_redis_sentinel::own_redis_sentinel(std::string script, std::string dir, int port_base, const std::vector<int>& announced)
    : base_(port_base),
      topology_(std::move(script), std::move(dir), "SHEDLOCK_SENTINEL_BASE=" + std::to_string(port_base) +
                    " SHEDLOCK_SENTINEL_DOWN_AFTER=" + std::to_string(down_after_ms) +
                    " SHEDLOCK_SENTINEL_ANNOUNCE_PORTS='" + port_list(announced) + "'",
                "sentinel.log") {}

std::string own_redis_sentinel::uri(const std::string& query) const {
    const int first = first_sentinel_port();
    return "redis-sentinel://:shedlock-test-pw@" + loopback_hosts({first, first + 1, first + 2}) +
           "/shedlock-primary?sentinel_password=sentinel-test-pw&" + query;
}

void own_redis_sentinel::fail_over() { topology_.run("fail_over"); }

void own_redis_sentinel::rejoin() { topology_.run("rejoin"); }

}  // namespace shedlock::chaos
