#pragma once
// A PostgreSQL primary and streaming replica the chaos run starts itself (providers/postgres/pair.sh), for
// the failover lanes: a "restart" of this pair is a failover (the primary killed, the replica
// promoted), its resume the killed node re-cloned as the new primary's replica.

#include "script_topology.hpp"

#include <chrono>
#include <string>
#include <utility>

namespace shedlock::chaos {

class own_postgres_pair {
public:
    /// Starts both nodes on the loopback ports with their files in `dir`; `synchronous`: the
    /// replica is the synchronous standby and commits wait until it applied them (remote_apply).
    /// `lag`: the WAL goes through bench/delay_proxy (`delay_proxy`, relays on `relay_ports`),
    /// delayed this long each way; empty `delay_proxy`: streamed directly.
    own_postgres_pair(std::string script, std::string dir, bool synchronous, std::pair<int, int> ports,
                      const std::string& delay_proxy, std::pair<int, int> relay_ports, std::chrono::microseconds lag);

    /// The multi-host URI of both nodes (password included: for the workers' command lines).
    std::string uri(const std::string& query) const;
    int port_a() const noexcept { return port_a_; }
    void fail_over();  ///< SIGKILL the primary, promote the replica; returns once it is primary
    void rejoin();     ///< the killed node streams again from the new primary

private:
    int port_a_, port_b_;
    script_topology pair_;  // stops both (by PID) when destroyed
};

}  // namespace shedlock::chaos
