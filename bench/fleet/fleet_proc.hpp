#pragma once
// What /proc says about processes on this machine: CPU time, TCP sockets. The servers of the
// bench run on the same host (loopback), so their processes can be read directly.

#include <cstdint>
#include <set>
#include <vector>

namespace shedlock::bench::fleet {

/// CPU time (user + system) of every thread of `pid` in ns, from /proc/PID/task/*/schedstat
/// (ns resolution, unlike the clock ticks of /proc/PID/stat); -1 once the process is gone.
std::int64_t process_cpu_ns(int pid);

/// Local ports of the TCP connections that the processes `pids` hold to `remote_port`.
std::set<int> client_ports(const std::vector<int>& pids, int remote_port);

/// The process that listens on TCP `port` (found through /proc/*/fd); -1 when none is visible.
int pid_listening_on(int port);

}  // namespace shedlock::bench::fleet
