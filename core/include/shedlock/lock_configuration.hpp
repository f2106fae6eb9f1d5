#pragma once
/// \file
/// What to lock and for how long.

#include <chrono>
#include <string>
#include <string_view>

namespace shedlock {

/// Longest lock name in characters (Unicode code points): fits ShedLock's `name VARCHAR(64)`,
/// which counts characters, not bytes.
inline constexpr std::size_t max_lock_name_length = 64;

/// Longest lease: 10 years (3,650 days). Every backend stores `now + lock_at_most_for` as a
/// four-digit-year timestamp; a longer lease would write a row no reader can parse.
inline constexpr std::chrono::milliseconds max_lock_at_most_for{3650LL * 86'400'000LL};

/// Throws configuration_error unless `name` is valid UTF-8 of 1..64 characters without control
/// or bidirectional formatting characters (see name_text_problem).
void validate_lock_name(std::string_view name);

/// Throws configuration_error unless 0 < at_most <= max_lock_at_most_for and
/// 0 <= minimum_hold <= at_most; `what` names the lock (or the operation) in the message.
void validate_lock_durations(const std::string& what, std::chrono::milliseconds at_most,
                             std::chrono::milliseconds minimum_hold);

/// The lock policy of one acquisition. Validated at construction, so an invalid policy is
/// reported when the configuration is built, not at the first firing. Names starting with
/// "shedlock-heartbeat:" (heartbeat_record.hpp; in any ASCII case, as a case-folding MySQL/MariaDB
/// name column of Java ShedLock's or an older table compares) are reserved for the heartbeat
/// records of status servers: such a name is a configuration_error, so a user's lock never
/// shares a row with one.
///
/// - `lock_at_most_for`: the lease. The lock is released at the latest after this long even if
///   the holder never finishes (it crashed, hung, lost its network). Must be > 0.
/// - `lock_at_least_for`: the minimum hold. Unlock keeps the lock until
///   `locked_at + lock_at_least_for`, so a 100 ms task does not run again on an instance whose
///   timer fired a few ms later. 0 <= minimum_hold <= at_most.
class lock_configuration {
public:
    lock_configuration(std::string name, std::chrono::milliseconds lock_at_most_for,
                       std::chrono::milliseconds lock_at_least_for = std::chrono::milliseconds{0});
    /// Same, with durations as text (`PT30M`, `30s`, ...); errors name the field.
    lock_configuration(std::string name, std::string_view lock_at_most_for, std::string_view lock_at_least_for);
    /// Same, without a minimum hold.
    lock_configuration(std::string name, std::string_view lock_at_most_for);

    const std::string& name() const noexcept { return name_; }
    std::chrono::milliseconds lock_at_most_for() const noexcept { return at_most_; }
    std::chrono::milliseconds lock_at_least_for() const noexcept { return at_least_; }

    /// A copy with another name (for lock-name templates rendered per firing); it keeps this
    /// configuration's metrics_name().
    lock_configuration with_name(std::string name) const;

    /// A copy whose metrics_name() is `name_template`, the template its names are rendered from
    /// (`settle:{date}`).
    lock_configuration rendered_from(std::string name_template) const;

    /// What metrics label this lock by (`shedlock_lock_attempts_total{lock=...}`): the template
    /// its name is rendered from, else the name. One series per template, not per rendered name:
    /// a name rendered per second would otherwise add series (and memory) without bound.
    const std::string& metrics_name() const noexcept { return template_.empty() ? name_ : template_; }

private:
    /// Skips the reservation; only heartbeat_lock_configuration() uses it.
    struct reserved_name {};
    lock_configuration(reserved_name, std::string name, std::chrono::milliseconds lock_at_most_for);
    friend lock_configuration heartbeat_lock_configuration(std::chrono::milliseconds every);

    std::string name_;
    std::chrono::milliseconds at_most_;
    std::chrono::milliseconds at_least_;
    std::string template_;  // empty: the name is not rendered from a template
};

}  // namespace shedlock
