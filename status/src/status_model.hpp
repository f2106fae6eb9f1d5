#pragma once
// One consistent read of what the status server shows: the scheduler's tasks and the backend's
// lock records, taken on the server's worker thread (it calls the backend).

#include <shedlock/scheduler.hpp>

#include <map>
#include <string>
#include <vector>

namespace shedlock::detail {

/// A lock record as the page shows it.
struct lock_view {
    lock_record record;
    bool held = false;                       ///< lock_until is after the backend's now
    std::chrono::milliseconds remaining{0};  ///< of the lease, when held
    /// Held longer than its task's lock_at_most_for (a lease that keeps being extended past it,
    /// or a holder whose clock or process misbehaves), held by a process whose heartbeat record
    /// stopped being renewed (it stopped reporting: killed, frozen, cut off), or unreadable.
    bool stale = false;
    std::string stale_reason;  ///< why, when stale
};

struct status_snapshot {
    timestamp now{};
    bool running = false;
    std::vector<task_status> tasks;
    std::vector<lock_view> locks;
    std::string locks_error;  ///< why the locks could not be listed (redacted); empty when listed
    std::map<std::string, std::size_t> lock_index;  ///< lock name -> position in `locks`
    const lock_view* lock_of(const task_status& t) const;
};

class heartbeat_watch;
class status_source;
/// `heartbeats` remembers the heartbeat records across the snapshots of one server.
status_snapshot take_snapshot(const status_source& s, heartbeat_watch& heartbeats);

std::string tasks_json(const status_snapshot& s);
std::string locks_json(const status_snapshot& s);
/// One run as JSON: outcome, times, its duration three ways (`duration_ms`, ISO `duration`,
/// `duration_text` as people read it), message (redacted).
void append_run_json(std::string& out, const run_summary& r);
/// The CSS class of an outcome's colour ("o-failed"; "o-none" for an unknown one).
std::string outcome_class(const std::string& outcome);
/// The self-contained HTML page; `panel` (HTML, may be empty) goes above the task table.
std::string status_page(const status_snapshot& s, const std::string& backend, const std::string& panel = {});

}  // namespace shedlock::detail
