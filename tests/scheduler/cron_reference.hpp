#pragma once
// A deliberately naive model of the cron rules in docs/scheduler.md, for the differential test.
// It shares no code with the product: its own parser, day rules written from the prose, and a
// brute-force walk over local wall-clock days, mapped to UTC by date/tz's local_info.

#include <shedlock/time.hpp>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace date {
class time_zone;
}

namespace shedlock::test {

/// What a day rule may look at: the day of the month, the month's last day, and weekdays
/// (0 = Sunday .. 6 = Saturday) through the weekday of the 1st.
struct day_facts {
    int day;
    int last;
    int first_weekday;
    int weekday_of(int d) const { return (first_weekday + d - 1) % 7; }
};

class reference_cron {
public:
    /// Empty when the documented grammar rejects `text`.
    static std::optional<reference_cron> parse(std::string_view text);

    /// The first whole second strictly after `after` whose local time in `zone` matches, within
    /// 36,600 days. A local time that does not exist never fires; one that exists twice fires at
    /// both instants.
    std::optional<timestamp> next(timestamp after, const date::time_zone& zone) const;

    using day_rule = std::function<bool(const day_facts&)>;

    bool disabled = false;
    std::array<bool, 60> seconds{}, minutes{};
    std::array<bool, 24> hours{};
    std::array<bool, 13> months{};          ///< 1..12
    std::vector<day_rule> days_of_month;    ///< any one must match; empty: every day
    std::vector<day_rule> days_of_week;     ///< any one must match; empty: every day
};

/// Shared by the reference's own files only.
namespace reference {
/// A day-of-month (1-31) or day-of-week (0-7 or MON..SUN) value.
std::optional<int> day_value(const std::string& text, bool day_of_week);
/// ASCII digits only, at most INT_MAX.
std::optional<int> ascii_number(const std::string& text);
/// The days one plain element (`*`, `a`, `a-b`, optionally `/n`) covers; weekday 7 is also set as 0.
bool plain_days(const std::string& element, bool day_of_week, std::vector<bool>& set);
/// Day-field rules; false when the field is invalid.
bool days_of_month(const std::string& field, std::vector<reference_cron::day_rule>& rules);
bool days_of_week(const std::string& field, std::vector<reference_cron::day_rule>& rules);
}  // namespace reference

}  // namespace shedlock::test
