#pragma once
// Servers a chaos run starts itself through one of the providers' scripts
// (`[ENV] SCRIPT COMMAND DIR [ARGUMENTS]`, its output appended to DIR/LOG): started when
// constructed, stopped (by the script, by PID) when destroyed. own_postgres_pair,
// own_redis_sentinel and own_redis_cluster are this with their own commands.

#include <string>
#include <vector>

namespace shedlock::chaos {

/// "p1 p2 ...": a list of ports as the scripts read it from the environment.
std::string port_list(const std::vector<int>& ports);

/// "127.0.0.1:p1,127.0.0.1:p2,...": the host list of a multi-host URI on loopback.
std::string loopback_hosts(const std::vector<int>& ports);

class script_topology {
public:
    /// Runs `start` with `start_arguments`. A start that fails half-way leaves servers running and
    /// no destructor will stop them (they would hold ports and connections for every later
    /// test): `stop` runs before the error goes on.
    script_topology(std::string script, std::string dir, std::string env, std::string log,
                    const std::string& start_arguments = "");
    ~script_topology();
    script_topology(const script_topology&) = delete;
    script_topology& operator=(const script_topology&) = delete;

    /// Runs `command` (`arguments` already quoted as the shell needs); throws naming the log.
    void run(const std::string& command, const std::string& arguments = "") const;

private:
    std::string script_, dir_, env_, log_;
};

}  // namespace shedlock::chaos
