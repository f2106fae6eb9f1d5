#include "backend_failure_log.hpp"

#include <shedlock/duration.hpp>

namespace shedlock::detail {
namespace {

std::string firings(long n) { return std::to_string(n) + (n == 1 ? " firing" : " firings"); }

std::string span(backend_failure_log::clock::duration d) {
    return format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(d));
}

/// An outcome the lock backend answered for (a firing that never asked it says nothing).
bool backend_answered(run_outcome outcome) {
    return outcome != run_outcome::lock_error && outcome != run_outcome::skipped_running;
}

}  // namespace

std::optional<std::string> backend_failure_log::note(const std::string& task, run_outcome outcome,
                                                     const std::string& message, clock::time_point now) {
    std::lock_guard lock(mutex_);
    const std::string who = "task \"" + task + "\": ";
    if (outcome == run_outcome::lock_error) return failed(who, message, now);
    if (backend_answered(outcome)) return answered(who, now);
    return std::nullopt;
}

std::optional<std::string> backend_failure_log::failed(const std::string& who, const std::string& message,
                                                       clock::time_point now) {
    if (failures_++ == 0) {
        spell_start_ = now;
        spell_told_ = false;
    }
    if (spell_told_) {
        if (!may_tell(now)) return std::nullopt;
        last_told_ = now;
        return who + "still failing on the lock backend: " + firings(failures_) + " in a row over " +
               span(now - spell_start_) + "; the last: " + message;
    }
    if (!may_tell(now)) {  // a spell soon after the last warning: summed up in the next one
        ++untold_;
        return std::nullopt;
    }
    std::string told = who + "the lock backend failed, the task did not run: " + message;
    if (failures_ > 1) told += " (" + firings(failures_) + " in a row over " + span(now - spell_start_) + ")";
    if (const long earlier = untold_ - (failures_ - 1); earlier > 0)
        told += "; before this, " + firings(earlier) + " failed in short spells since the last warning";
    told += " (told at most every " + format_duration(reminder_) + " while firings fail, and when one gets an answer)";
    spell_told_ = true;
    untold_ = 0;
    last_told_ = now;
    return told;
}

std::optional<std::string> backend_failure_log::answered(const std::string& who, clock::time_point now) {
    if (failures_ == 0) return std::nullopt;
    const long failed = failures_;
    failures_ = 0;
    if (!spell_told_) return std::nullopt;  // counted in untold_, told with the next warning
    last_told_ = now;
    return who + "the lock backend answers again, after " + firings(failed) + " failed over " +
           span(now - spell_start_);
}

}  // namespace shedlock::detail
