#pragma once
// What the operator hears about a task whose firings fail on the lock backend (run_outcome
// lock_error): the first failure, a reminder every `reminder` while they go on, and the first
// firing that gets an answer again. Each failure's run record is kept either way; without this a
// scheduler (and `shedlock daemon` at its default log level) whose every firing failed said
// nothing. Used by both schedulers; safe to call from any thread.

#include <shedlock/locking_task_executor.hpp>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace shedlock::detail {

class backend_failure_log {
public:
    using clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds default_reminder{std::chrono::minutes{5}};

    explicit backend_failure_log(std::chrono::milliseconds reminder = default_reminder) : reminder_(reminder) {}

    /// The warning a firing of `task` that ended in `outcome` (with `message`) at `now` calls for.
    std::optional<std::string> note(const std::string& task, run_outcome outcome, const std::string& message,
                                    clock::time_point now);

private:
    std::chrono::milliseconds reminder_;
    std::mutex mutex_;
    long failures_ = 0;  ///< firings in a row that ended in lock_error
    clock::time_point first_failure_{}, last_told_{};
};

}  // namespace shedlock::detail
