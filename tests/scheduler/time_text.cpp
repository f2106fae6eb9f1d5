#include "time_text.hpp"

#include <date/date.h>
#include <date/tz.h>

#include <sstream>
#include <stdexcept>

namespace shedlock::test {

timestamp at(const std::string& text) {
    std::istringstream in(text.substr(0, 19));
    date::sys_seconds local_as_sys;
    in >> date::parse("%Y-%m-%dT%H:%M:%S", local_as_sys);
    if (in.fail()) throw std::invalid_argument("bad test time " + text);
    std::chrono::seconds offset{0};
    if (text.size() > 19 && text[19] != 'Z') {
        const int sign = text[19] == '-' ? -1 : 1;
        offset = std::chrono::hours{std::stoi(text.substr(20, 2))} + std::chrono::minutes{std::stoi(text.substr(23, 2))};
        offset *= sign;
    }
    return timestamp{local_as_sys - offset};
}

std::string local_text(timestamp t, const std::string& zone) {
    const auto zoned = date::make_zoned(date::locate_zone(zone), date::floor<std::chrono::seconds>(t));
    return date::format("%Y-%m-%dT%H:%M:%S%Ez", zoned);
}

}  // namespace shedlock::test
