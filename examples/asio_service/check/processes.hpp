#pragma once
// The example's processes, started and stopped by PID.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace asio_service_check {

struct service_process {
    pid_t pid = -1;
    unsigned short port = 0;  ///< read from its --port-file once it listens
    std::string log;          ///< its stdout and stderr
    bool reaped = false;      ///< it ended before the stop (already waited for)
};

/// One cluster: three processes of the example on one backend, writing to one journal.
struct backend_run {
    std::string name;  ///< "sqlite", "redis", ...
    std::string uri;
    std::string dir{};  ///< set by start_clusters: <dir>/<name>, the journal and logs
    std::vector<service_process> processes{};
};

/// Starts the first process of every cluster, waits until each listens (it has created the
/// tables: the others do not race it), then the other two of each. Returns when all listen; a
/// process that exits first, or does not listen within 30 s of the start, is a problem (with its
/// log's tail), and then the run is not polled.
std::chrono::steady_clock::time_point start_clusters(const std::string& app, const std::string& dir,
                                                     const std::string& prefix, std::vector<backend_run>& runs,
                                                     std::vector<std::string>& problems);

/// SIGTERM to every process, then waits up to `grace` for each; one still running then is
/// killed (SIGKILL) and a problem, as is an exit status other than 0 (with its log's tail).
void stop_clusters(std::vector<backend_run>& runs, std::chrono::seconds grace, std::vector<std::string>& problems);

}  // namespace asio_service_check
