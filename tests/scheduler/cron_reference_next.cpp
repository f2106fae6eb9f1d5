// The reference's next(): every local day from the day before `after`, every matching local time
// of a matching day, each mapped to all its UTC instants (none in a gap, two in a fold); the
// earliest instant after `after` wins. Only bounds that cannot change the answer are used to
// skip work: a block of local times whose every instant is <= after, or >= the best so far.
#include "cron_reference.hpp"

#include <date/date.h>
#include <date/tz.h>

#include <algorithm>

namespace shedlock::test {
namespace {

using namespace std::chrono;
using date::local_days;
using date::local_seconds;

struct offset_bounds {
    seconds min, max;
};

// Every UTC offset that any instant of local day `day` can have: the offsets in force from
// 14 h before its start to 12 h after its end (no zone is further from UTC).
offset_bounds offsets_of(local_days day, const date::time_zone& zone) {
    const date::sys_seconds start{day.time_since_epoch() - hours{14}};
    const date::sys_seconds end{day.time_since_epoch() + hours{36}};
    auto info = zone.get_info(start);
    offset_bounds b{info.offset, info.offset};
    while (info.end < end) {
        info = zone.get_info(info.end);
        b.min = std::min(b.min, info.offset);
        b.max = std::max(b.max, info.offset);
    }
    return b;
}

bool day_matches(const reference_cron& c, local_days day) {
    const date::year_month_day ymd{day};
    if (!c.months[static_cast<unsigned>(ymd.month())]) return false;
    const auto last = (ymd.year() / ymd.month() / date::last).day();
    const day_facts f{static_cast<int>(static_cast<unsigned>(ymd.day())), static_cast<int>(static_cast<unsigned>(last)),
                      static_cast<int>(date::weekday{local_days{ymd.year() / ymd.month() / 1}}.c_encoding())};
    const auto any = [&](const std::vector<reference_cron::day_rule>& rules) {
        return rules.empty() || std::any_of(rules.begin(), rules.end(), [&](const auto& r) { return r(f); });
    };
    return any(c.days_of_month) && any(c.days_of_week);
}

class search {
public:
    search(const reference_cron& c, timestamp after, const date::time_zone& zone)
        : cron_(c), after_(after), zone_(zone) {}

    // False once no later local day can beat the best instant found so far.
    bool day(local_days d) {
        const bool matches = day_matches(cron_, d);
        if (!matches && !best_) return true;
        bounds_ = offsets_of(d, zone_);
        if (best_ && utc(local_seconds{d}, bounds_.max) >= *best_) return false;
        if (matches) times_of(d);
        return true;
    }
    std::optional<date::sys_seconds> best() const { return best_; }

private:
    static date::sys_seconds utc(local_seconds l, seconds offset) {
        return date::sys_seconds{l.time_since_epoch() - offset};
    }
    bool all_before(local_seconds last) const { return utc(last, bounds_.min) <= after_; }
    bool all_beaten(local_seconds first) const { return best_ && utc(first, bounds_.max) >= *best_; }

    void times_of(local_days d) {
        for (int h = 0; h < 24; ++h) {
            const local_seconds hour_start = d + hours{h};
            if (!cron_.hours[static_cast<std::size_t>(h)] || all_before(hour_start + seconds{3599})) continue;
            if (all_beaten(hour_start)) return;
            for (int m = 0; m < 60; ++m) {
                const local_seconds minute_start = hour_start + minutes{m};
                if (!cron_.minutes[static_cast<std::size_t>(m)] || all_before(minute_start + seconds{59})) continue;
                if (all_beaten(minute_start)) return;
                for (int s = 0; s < 60; ++s)
                    if (cron_.seconds[static_cast<std::size_t>(s)]) consider(minute_start + seconds{s});
            }
        }
    }

    void consider(local_seconds l) {
        const auto info = zone_.get_info(l);
        if (info.result == date::local_info::nonexistent) return;
        offer(utc(l, info.first.offset));
        if (info.result == date::local_info::ambiguous) offer(utc(l, info.second.offset));
    }

    void offer(date::sys_seconds t) {
        if (t > after_ && (!best_ || t < *best_)) best_ = t;
    }

    const reference_cron& cron_;
    timestamp after_;
    const date::time_zone& zone_;
    offset_bounds bounds_{};
    std::optional<date::sys_seconds> best_;
};

}  // namespace

std::optional<timestamp> reference_cron::next(timestamp after, const date::time_zone& zone) const {
    namespace chrono = std::chrono;  // the members seconds, minutes, hours hide chrono's
    if (disabled) return std::nullopt;
    // The product's horizon: 36,600 days from the first candidate second.
    const auto limit = date::floor<chrono::seconds>(after) + chrono::seconds{1} + date::days{36600};
    search s(*this, after, zone);
    auto d = date::floor<date::days>(zone.to_local(after)) - date::days{1};
    while (date::sys_seconds{d.time_since_epoch()} - chrono::hours{14} < limit && s.day(d)) d += date::days{1};
    const auto best = s.best();
    if (!best || *best >= limit) return std::nullopt;
    return timestamp{*best};
}

}  // namespace shedlock::test
