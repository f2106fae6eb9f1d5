// next(): walks the zone's UTC-offset segments; inside one segment local time maps one-to-one to
// UTC, so a plain calendar search per segment gives Spring's DST behaviour for free: local times
// in a gap belong to no segment (no firing), repeated local times belong to two (one per offset).
#include "cron_parser.hpp"

#include <shedlock/cron_expression.hpp>
#include <shedlock/error.hpp>

#include <date/date.h>
#include <date/tz.h>

namespace shedlock {
namespace {

using std::chrono::seconds;
using local_seconds = date::local_seconds;

/// Search horizon: an expression matching no date in this span never fires.
constexpr auto horizon = date::days{366 * 100};

bool day_of_month_matches(const cron_expression::day_of_month_rule& r, const date::year_month_day& ymd) {
    const int d = static_cast<int>(static_cast<unsigned>(ymd.day()));
    const int last = static_cast<int>(static_cast<unsigned>((ymd.year() / ymd.month() / date::last).day()));
    const bool any_rule = r.days.any() || !r.before_last.empty() || r.last_weekday || !r.nearest_weekday.empty();
    if (!any_rule) return true;
    if (r.days[static_cast<std::size_t>(d)]) return true;
    for (int n : r.before_last)
        if (d == last - n) return true;
    const auto weekday_of = [&](int day) {
        return date::weekday{date::sys_days{ymd.year() / ymd.month() / day}}.c_encoding();  // 0 = Sunday
    };
    if (r.last_weekday) {
        const unsigned w = weekday_of(last);
        if (d == (w == 6 ? last - 1 : w == 0 ? last - 2 : last)) return true;
    }
    for (int n : r.nearest_weekday) {
        if (n > last) continue;  // no such day this month
        const unsigned w = weekday_of(n);
        int target = n;
        if (w == 6) target = n == 1 ? 3 : n - 1;      // Saturday: Friday before, or Monday 3rd
        if (w == 0) target = n == last ? n - 2 : n + 1;  // Sunday: Monday after, or Friday before the end
        if (d == target) return true;
    }
    return false;
}

bool day_of_week_matches(const cron_expression::day_of_week_rule& r, const date::year_month_day& ymd,
                         date::weekday wd) {
    if (r.days.none() && r.last_of_month.empty() && r.nth.empty()) return true;
    const auto w = static_cast<int>(wd.c_encoding());
    if (r.days[static_cast<std::size_t>(w)]) return true;
    const int d = static_cast<int>(static_cast<unsigned>(ymd.day()));
    const int last = static_cast<int>(static_cast<unsigned>((ymd.year() / ymd.month() / date::last).day()));
    for (int n : r.last_of_month)
        if (w == n && d + 7 > last) return true;
    for (const auto& [n, k] : r.nth)
        if (w == n && (d - 1) / 7 + 1 == k) return true;
    return false;
}

/// First matching time of day at or after `from` (seconds since midnight), if any.
std::optional<seconds> next_time_of_day(const cron_expression::fields& f, seconds from) {
    const auto h0 = static_cast<std::size_t>(from.count() / 3600);
    const auto m0 = static_cast<std::size_t>(from.count() / 60 % 60);
    const auto s0 = static_cast<std::size_t>(from.count() % 60);
    for (std::size_t h = h0; h < 24; ++h) {
        if (!f.hours[h]) continue;
        for (std::size_t m = h == h0 ? m0 : 0; m < 60; ++m) {
            if (!f.minutes[m]) continue;
            for (std::size_t s = (h == h0 && m == m0) ? s0 : 0; s < 60; ++s)
                if (f.seconds[s]) return seconds{static_cast<long>(h * 3600 + m * 60 + s)};
        }
    }
    return std::nullopt;
}

/// First matching local time in [lo, hi).
std::optional<local_seconds> next_local(const cron_expression::fields& f, local_seconds lo, local_seconds hi) {
    auto day = date::floor<date::days>(lo);
    seconds from = lo - day;
    while (day < hi) {
        const date::year_month_day ymd{day};
        if (!f.months[static_cast<unsigned>(ymd.month())]) {
            day = date::local_days{(ymd.year() / ymd.month() / 1) + date::months{1}};
            from = seconds{0};
            continue;
        }
        const date::weekday wd{day};
        if (day_of_month_matches(f.day_of_month, ymd) && day_of_week_matches(f.day_of_week, ymd, wd)) {
            if (const auto tod = next_time_of_day(f, from)) {
                const auto candidate = day + *tod;
                if (candidate >= hi) return std::nullopt;
                return candidate;
            }
        }
        day += date::days{1};
        from = seconds{0};
    }
    return std::nullopt;
}

std::string trim(std::string_view text) {
    const auto b = text.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    const auto e = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(b, e - b + 1));
}

}  // namespace

const date::time_zone& locate_time_zone(std::string_view name) {
    try {
        if (name.empty()) {
            try {
                return *date::current_zone();
            } catch (const std::exception&) {
                return *date::locate_zone("Etc/UTC");
            }
        }
        return *date::locate_zone(name);
    } catch (const std::exception& e) {
        throw configuration_error("time zone \"" + std::string(name) +
                                  "\" is not in the system's IANA database (/usr/share/zoneinfo); use a name "
                                  "like Europe/Berlin or UTC (" + e.what() + ")");
    }
}

cron_expression cron_expression::parse(std::string_view text) {
    std::string trimmed = trim(text);
    if (trimmed == "-") return cron_expression(trimmed, fields{}, true);
    if (trimmed.empty()) throw configuration_error("cron expression is empty; write six fields or \"-\" to disable");
    auto f = detail::parse_cron_fields(trimmed);
    return cron_expression(std::move(trimmed), std::move(f), false);
}

std::optional<timestamp> cron_expression::next(timestamp after, const date::time_zone& zone) const {
    if (disabled_) return std::nullopt;
    auto t = date::floor<seconds>(after) + seconds{1};
    const auto limit = t + horizon;
    while (t < limit) {
        const auto info = zone.get_info(t);
        const auto segment_end = std::min(info.end, limit);
        const local_seconds lo{t.time_since_epoch() + info.offset};
        const local_seconds hi{segment_end.time_since_epoch() + info.offset};
        if (const auto local = next_local(fields_, lo, hi))
            return timestamp{date::sys_seconds{local->time_since_epoch() - info.offset}};
        t = segment_end;
    }
    return std::nullopt;
}

}  // namespace shedlock
