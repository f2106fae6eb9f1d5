#pragma once
/// \file
/// When a task fires: cron, fixed rate or fixed delay. Plain data, so a configuration file can
/// build or override it; checked when the scheduler starts.

#include <shedlock/time.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace shedlock {

enum class trigger_kind { cron, fixed_rate, fixed_delay };

/// A trigger specification. Firings missed while the process was suspended or the task overran
/// are skipped, not replayed in a burst (see task_definition::misfire_grace).
struct trigger {
    trigger_kind kind = trigger_kind::fixed_rate;
    std::string expression;  ///< cron: six fields, a macro, or "-" (disabled)
    std::string zone;        ///< cron: IANA zone name; empty = the host's zone
    std::chrono::milliseconds period{0};         ///< fixed_rate: period; fixed_delay: delay after completion
    std::chrono::milliseconds initial_delay{0};  ///< fixed_rate / fixed_delay: wait before the first firing
    /// fixed_rate only: firings at whole multiples of `period` since the Unix epoch (plus
    /// initial_delay as a phase), so every instance of a cluster fires at the same instants.
    bool aligned = false;

    /// "cron(0 0 2 * * ?, Europe/Berlin)", "fixed_rate(PT1S)", ... for messages.
    std::string describe() const;
};

/// Fires when the expression matches, evaluated in `zone` (IANA name; empty = host zone).
trigger cron(std::string expression, std::string zone = {});
/// Fires every `period` from start + initial_delay, whether or not the last run finished (an
/// overlapping firing is recorded as skipped_running).
trigger fixed_rate(std::chrono::milliseconds period,
                   std::chrono::milliseconds initial_delay = std::chrono::milliseconds{0});
/// A fixed_rate whose slots are whole multiples of `period` since the epoch, shifted by `phase`:
/// instances started at different times fire at the same instants (what a cluster-wide lock with
/// lock_at_least_for needs to run each slot once).
trigger aligned_rate(std::chrono::milliseconds period, std::chrono::milliseconds phase = std::chrono::milliseconds{0});
/// Fires `delay` after the previous run finished (the first time at start + initial_delay).
trigger fixed_delay(std::chrono::milliseconds delay,
                    std::chrono::milliseconds initial_delay = std::chrono::milliseconds{0});

/// The next `n` firings of `t` for a scheduler started at `now` (fixed_delay assumes runs that
/// take no time), for previews such as `shedlock daemon --dry-run`. Empty for a disabled cron.
/// Throws configuration_error for an invalid trigger (bad cron, unknown zone, period <= 0).
std::vector<timestamp> upcoming_firings(const trigger& t, timestamp now, std::size_t n);

/// Renders `{date}` (20240601), `{datetime}` (20240601T020000) and `{env}` in `text` for a firing
/// at `at`, in the trigger's zone (the cron zone, else UTC) — what lock-name templates use.
/// Throws configuration_error for an unknown placeholder or `{env}` with an empty `env`.
std::string render_template(const std::string& text, const trigger& t, timestamp at, const std::string& env);

}  // namespace shedlock
