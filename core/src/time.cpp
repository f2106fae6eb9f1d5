#include <shedlock/error.hpp>
#include <shedlock/time.hpp>

#include <cstdio>

namespace shedlock {

using namespace std::chrono;

timestamp system_clock::now() const { return floor<milliseconds>(std::chrono::system_clock::now()); }

const system_clock& system_clock::instance() {
    static const system_clock clock;
    return clock;
}

std::string format_timestamp(timestamp t) {
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const hh_mm_ss<milliseconds> hms{t - day};
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02ld:%02ld:%02ld.%03ld", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                  static_cast<long>(hms.seconds().count()), static_cast<long>(hms.subseconds().count()));
    return buf;
}

timestamp parse_timestamp(const std::string& text) {
    int y = 0;
    unsigned mo = 0, d = 0, h = 0, mi = 0, s = 0;
    char sep = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2u-%2u%c%2u:%2u:%2u%n", &y, &mo, &d, &sep, &h, &mi, &s, &consumed) != 7 ||
        (sep != ' ' && sep != 'T'))
        throw storage_error(storage_category::invalid_data, "stored time \"" + text + "\" is not YYYY-MM-DD HH:MM:SS[.fff]");
    long ms = 0;
    if (text.size() > static_cast<std::size_t>(consumed) && text[consumed] == '.') {
        long scale = 100;
        for (std::size_t i = consumed + 1; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
            ms += (text[i] - '0') * scale;
            scale /= 10;
        }
    }
    const year_month_day ymd{year{y}, month{mo}, day{d}};
    if (!ymd.ok()) throw storage_error(storage_category::invalid_data, "stored time \"" + text + "\" is not a date");
    return timestamp{sys_days{ymd}.time_since_epoch() + hours{h} + minutes{mi} + seconds{s} + milliseconds{ms}};
}

}  // namespace shedlock
