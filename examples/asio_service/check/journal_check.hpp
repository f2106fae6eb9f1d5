#pragma once
// What the test asserts about one backend's journal (journal.hpp has the line format).

#include <map>
#include <string>
#include <vector>

namespace asio_service_check {

/// Expected runs per task over the run: [at_least, at_most].
struct run_bounds {
    int at_least = 0;
    int at_most = 0;
};

/// Reads `path` and returns one message per violation (empty: all good): a (task, scheduled_at)
/// twice (a firing run twice in the cluster), two runs of one task overlapping in time (the lock
/// did not keep them apart: for slow_sync, the keep-alive failed), fencing tokens not increasing
/// with the runs' order, a malformed line, a task's count outside `bounds`. `counts` gets the runs
/// per task and `pids` the processes that ran something.
std::vector<std::string> check_journal(const std::string& path, const std::map<std::string, run_bounds>& bounds,
                                       std::map<std::string, int>& counts, std::map<std::string, int>& pids);

}  // namespace asio_service_check
