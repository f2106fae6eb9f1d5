#pragma once
/// \file
/// Cron expressions with the semantics of Spring Framework's `CronExpression`.

#include <shedlock/time.hpp>

#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace date {
class time_zone;
}

namespace shedlock {

/// Looks a zone up in the system's IANA database (/usr/share/zoneinfo). An empty name means the
/// host's zone (/etc/localtime), falling back to UTC. Throws configuration_error naming the zone.
const date::time_zone& locate_time_zone(std::string_view name);

/// A parsed cron expression: six fields, seconds first
/// (`second minute hour day-of-month month day-of-week`), as Spring's `CronExpression`:
/// lists, ranges, steps (`*/5`, `10-40/10`, `7/15`), month and day names (case-insensitive),
/// day-of-week 0 and 7 = Sunday with `*` running MON..SUN (`*/2` = MON,WED,FRI,SUN) and a range
/// from SUN starting at 0 (`SUN-SAT`), `?` as a whole day field = any day, and in day-of-month
/// (upper case) `L`, `L-n`, `LW`, `nW`; in day-of-week `nL` (last weekday n of the month) and
/// `n#k` (k-th weekday n). Day-of-month AND day-of-week must both match. Macros: `@yearly
/// @annually @monthly @weekly @daily @midnight @hourly`. The single word `-` is the disabled
/// expression: it never fires. Deliberate differences from Spring: docs/scheduler.md.
///
/// Thread safety: immutable after parse; safe for concurrent use.
class cron_expression {
public:
    /// Throws configuration_error `"<text>": <field> <reason>`, e.g.
    /// `"0 0 25 * * *": hour 25 out of range 0-23`.
    static cron_expression parse(std::string_view text);

    /// The first time strictly after `after` (at whole seconds) that matches, evaluated as local
    /// time in `zone`. DST as Spring does it: a local time in a spring-forward gap does not fire
    /// that day; a local time in a repeated fall-back hour fires once per offset. Empty when the
    /// expression is disabled or matches no date in the next 100 years (e.g. `0 0 0 30 2 *`).
    std::optional<timestamp> next(timestamp after, const date::time_zone& zone) const;

    bool disabled() const noexcept { return disabled_; }
    const std::string& text() const noexcept { return text_; }

    /// Day-of-month rules (internal representation, exposed for the parser).
    struct day_of_month_rule {
        std::bitset<32> days;               ///< plain days 1..31
        std::vector<int> before_last;       ///< `L` (0) and `L-n` (n)
        bool last_weekday = false;          ///< `LW`
        std::vector<int> nearest_weekday;   ///< `nW`
    };
    /// Day-of-week rules; weekdays 0 = Sunday .. 6 = Saturday.
    struct day_of_week_rule {
        std::bitset<7> days;
        std::vector<int> last_of_month;             ///< `nL`
        std::vector<std::pair<int, int>> nth;       ///< `n#k`: (weekday, k)
    };
    /// The parsed fields (internal representation, exposed for the parser).
    struct fields {
        std::bitset<60> seconds, minutes;
        std::bitset<24> hours;
        std::bitset<13> months;  ///< 1..12
        day_of_month_rule day_of_month;
        day_of_week_rule day_of_week;
    };

private:
    cron_expression(std::string text, fields f, bool disabled)
        : text_(std::move(text)), fields_(std::move(f)), disabled_(disabled) {}

    std::string text_;
    fields fields_;
    bool disabled_ = false;
};

}  // namespace shedlock
