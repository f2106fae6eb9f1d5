#include "firing_times.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

namespace shedlock::detail {

firing_times::firing_times(const trigger& spec) : spec_(spec) {
    if (spec.kind == trigger_kind::cron) {
        cron_ = cron_expression::parse(spec.expression);
        zone_ = &locate_time_zone(spec.zone);
        return;
    }
    zone_ = &locate_time_zone("UTC");
    const char* what = spec.kind == trigger_kind::fixed_rate ? "fixed_rate period" : "fixed_delay delay";
    if (spec.period <= std::chrono::milliseconds{0})
        throw configuration_error(std::string(what) + " " + format_duration(spec.period) +
                                  " must be > 0 (e.g. PT1S or 500ms)");
    if (spec.initial_delay < std::chrono::milliseconds{0})
        throw configuration_error("initial delay " + format_duration(spec.initial_delay) + " must not be negative");
}

std::optional<timestamp> firing_times::first(timestamp now) const {
    if (cron_) return cron_->next(now, *zone_);
    if (!spec_.aligned) return now + spec_.initial_delay;
    // Smallest epoch-aligned slot (shifted by the phase) strictly after now.
    const auto phase = spec_.initial_delay % spec_.period;
    const auto since = now.time_since_epoch() - phase;
    return timestamp{(since / spec_.period + 1) * spec_.period + phase};
}

std::optional<timestamp> firing_times::next(timestamp previous) const {
    if (cron_) return cron_->next(previous, *zone_);
    return previous + spec_.period;
}

std::optional<timestamp> firing_times::next_after_now(timestamp previous, timestamp now) const {
    if (cron_) return cron_->next(now, *zone_);
    if (after_completion()) return now;
    const auto behind = now - previous;
    return previous + (behind / spec_.period + 1) * spec_.period;
}

bool firing_times::same_times(const firing_times& other) const noexcept {
    if (spec_.kind != other.spec_.kind || zone_ != other.zone_) return false;
    if (cron_) return other.cron_ && cron_->text() == other.cron_->text();
    return spec_.period == other.spec_.period && spec_.initial_delay == other.spec_.initial_delay &&
           spec_.aligned == other.spec_.aligned;
}

}  // namespace shedlock::detail
