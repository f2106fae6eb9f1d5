#pragma once
// Waiting for SQLite's write lock without starving.

#include <sqlite3.h>

#include <chrono>

namespace shedlock::providers::detail {

/// Installs a busy handler that polls every 20..250 us (jittered) until `timeout` has passed.
/// SQLite's default handler sleeps 1, 2, 5, 10 ... 100 ms between tries: the sleepers keep
/// missing the short windows in which the lock is free, so one process can starve for seconds.
/// `state` must outlive the connection.
struct busy_wait_state {
    std::chrono::milliseconds timeout;
    std::chrono::steady_clock::time_point started{};
};

void install_busy_wait(sqlite3* db, busy_wait_state& state);

}  // namespace shedlock::providers::detail
