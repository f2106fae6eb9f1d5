#pragma once
// A checked trigger: computes firing times (wall clock) from a trigger specification.

#include <shedlock/cron_expression.hpp>
#include <shedlock/trigger.hpp>

#include <optional>

namespace shedlock::detail {

class firing_times {
public:
    /// Throws configuration_error (without the task name; the caller adds it) when the trigger is
    /// invalid: bad cron, unknown zone, period <= 0, negative initial delay.
    explicit firing_times(const trigger& spec);

    /// The first firing of a scheduler started at `now`; empty when it never fires.
    std::optional<timestamp> first(timestamp now) const;
    /// The slot after `previous` (cron and fixed_rate; fixed_delay is driven by completion).
    std::optional<timestamp> next(timestamp previous) const;
    /// The first slot strictly after `now`, for skipping missed firings.
    std::optional<timestamp> next_after_now(timestamp previous, timestamp now) const;
    /// fixed_delay: the next firing is `finished + delay`.
    bool after_completion() const noexcept { return spec_.kind == trigger_kind::fixed_delay; }
    std::chrono::milliseconds delay() const noexcept { return spec_.period; }
    bool disabled() const noexcept { return cron_ && cron_->disabled(); }
    /// True when `other` computes the same firing times (the same cron text and zone, or the same
    /// rate): a burst of tasks on one trigger then computes its next firing once.
    bool same_times(const firing_times& other) const noexcept;
    /// The zone lock-name templates render in: the cron zone, else UTC.
    const date::time_zone& zone() const noexcept { return *zone_; }

private:
    trigger spec_;
    std::optional<cron_expression> cron_;
    const date::time_zone* zone_ = nullptr;
};

}  // namespace shedlock::detail
