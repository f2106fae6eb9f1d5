#pragma once
// The shared journal the CI test reads: one line per body that ran, appended by every process
// of the cluster to one file, so that a firing run twice shows as two lines.

#include <shedlock/time.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace asio_service {

/// One line per run: `<task> <scheduled_at> <pid> <token> <begin_ms> <end_ms>`, the token "-"
/// when the backend has no fencing, begin/end the body's wall-clock span in ms since the epoch
/// (the test checks that runs of one task never overlap).
///
/// Each line is ONE write(2) on a descriptor opened with O_APPEND: lines of several processes
/// never interleave. A short write to a local file, done on the executor's thread: it does not
/// wait on the network, as a lock call would.
class journal {
public:
    /// Opens (creates) `path`; throws std::system_error naming the path when it cannot.
    explicit journal(const std::string& path);
    ~journal();
    journal(const journal&) = delete;
    journal& operator=(const journal&) = delete;

    void append(const std::string& task, shedlock::timestamp scheduled_at, std::optional<std::int64_t> token,
                std::chrono::system_clock::time_point begin) const;

private:
    std::string path_;
    int fd_;
};

}  // namespace asio_service
