#pragma once
// The example's three scheduled coroutine tasks, the same in every process of the cluster.

#include "journal.hpp"
#include "outcome_board.hpp"

#include <shedlock/asio/scheduler.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace asio_service {

/// What the task bodies write to; both must outlive the scheduler.
struct task_sinks {
    journal* lines;
    outcome_board* board;
};

/// The body of slow_sync suspends this long, three times: longer than its lock_at_most_for/2.
inline constexpr std::chrono::milliseconds slow_sync_step{1200};

/// Lock names and keys start with `prefix` (one cluster's names apart from another's on the same
/// backend):
/// - heartbeat: every second, short, no claim: lock_at_least_for 900ms covers the processes' timer
///   skew, and misfire_grace 300ms keeps a process that woke late from running a second already run
///   (it would need a lock call 600 ms slower than the winner's).
/// - slow_sync: every second, its body suspends 3 x 1.2 s under a 2 s lease: only the keep-alive
///   (an extension every 1 s, a coroutine beside the body) keeps the other processes out.
/// - report: every 2 s, idempotency key `<prefix>:report:{datetime}` claimed through the async
///   claim service: a process firing late for a second already reported skips it (skipped_done).
std::vector<shedlock::asio::async_task> make_service_tasks(const std::string& prefix, task_sinks sinks);

}  // namespace asio_service
