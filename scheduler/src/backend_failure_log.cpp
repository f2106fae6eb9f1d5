#include "backend_failure_log.hpp"

#include <shedlock/duration.hpp>

namespace shedlock::detail {
namespace {

std::string firings(long n) { return std::to_string(n) + (n == 1 ? " firing" : " firings"); }

std::string span(backend_failure_log::clock::duration d) {
    return format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(d));
}

/// An outcome the lock backend answered for (a firing that never asked it says nothing).
bool answered(run_outcome outcome) { return outcome != run_outcome::lock_error && outcome != run_outcome::skipped_running; }

}  // namespace

std::optional<std::string> backend_failure_log::note(const std::string& task, run_outcome outcome,
                                                     const std::string& message, clock::time_point now) {
    std::lock_guard lock(mutex_);
    const std::string who = "task \"" + task + "\": ";
    if (outcome == run_outcome::lock_error) {
        if (++failures_ == 1) {
            first_failure_ = last_told_ = now;
            return who + "the lock backend failed, the task did not run: " + message +
                   " (told again every " + format_duration(reminder_) + " while firings fail, and when one gets an answer)";
        }
        if (now - last_told_ < reminder_) return std::nullopt;
        last_told_ = now;
        return who + "still failing on the lock backend: " + firings(failures_) + " in a row over " +
               span(now - first_failure_) + "; the last: " + message;
    }
    if (!answered(outcome) || failures_ == 0) return std::nullopt;
    const std::string told = who + "the lock backend answers again, after " + firings(failures_) + " failed over " +
                             span(now - first_failure_);
    failures_ = 0;
    return told;
}

}  // namespace shedlock::detail
