#pragma once
// What the operator hears about a task whose firings fail on the lock backend (run outcome
// lock_error): the failure, a reminder every `reminder` while failures go on, and the first
// firing that gets an answer again. At most one failure warning per `reminder`, so a backend
// that fails on and off (every other firing) is not a warning per firing: spells that start
// within `reminder` of the last warning are counted and summed up in the next one. Each failure's
// run record is kept either way; without this a scheduler (and `shedlock daemon` at its default
// log level) whose every firing failed said nothing. Used by both schedulers; any thread.

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
    std::optional<std::string> failed(const std::string& who, const std::string& message, clock::time_point now);
    std::optional<std::string> answered(const std::string& who, clock::time_point now);
    bool may_tell(clock::time_point now) const { return !last_told_ || now - *last_told_ >= reminder_; }

    std::chrono::milliseconds reminder_;
    std::mutex mutex_;
    long failures_ = 0;            ///< firings in a row that ended in lock_error (this spell)
    bool spell_told_ = false;      ///< this spell's failure was warned about
    long untold_ = 0;              ///< failed firings of spells nobody was told about
    clock::time_point spell_start_{};
    std::optional<clock::time_point> last_told_;
};

}  // namespace shedlock::detail
