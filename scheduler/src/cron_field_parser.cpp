#include "cron_field_parser.hpp"

#include <shedlock/error.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace shedlock::detail {
namespace {

const std::vector<std::string> month_names{"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                           "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
// As in Spring: MON = 1 .. SUN = 7 (and 0 is Sunday too).
const std::vector<std::string> day_names{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};

bool parse_int(const std::string& token, int& out) {
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc{} && end == token.data() + token.size() && !token.empty();
}

}  // namespace

const cron_field_spec second_field{.name = "second", .min = 0, .max = 59, .star_min = 0};
const cron_field_spec minute_field{.name = "minute", .min = 0, .max = 59, .star_min = 0};
const cron_field_spec hour_field{.name = "hour", .min = 0, .max = 23, .star_min = 0};
const cron_field_spec day_of_month_field{.name = "day-of-month", .min = 1, .max = 31, .star_min = 1};
const cron_field_spec month_field{
    .name = "month", .min = 1, .max = 12, .star_min = 1, .names = &month_names, .first_name_value = 1};
// Spring counts `*` (and so `*/2`) over MON(1)..SUN(7), and reads a range that starts at SUN(7)
// from 0; 0 stays a valid Sunday elsewhere (`0/2` = SUN,TUE,THU,SAT).
const cron_field_spec day_of_week_field{.name = "day-of-week", .min = 0, .max = 7, .star_min = 1,
                                        .names = &day_names, .first_name_value = 1,
                                        .seven_starts_ranges_at_zero = true};

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto pos = text.find(separator, start);
        parts.emplace_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) return parts;
        start = pos + 1;
    }
}

std::string to_upper(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

void cron_field_parser::fail(const std::string& reason) const {
    throw configuration_error("\"" + std::string(expression_) + "\": " + spec_.name + " " + reason);
}

int cron_field_parser::value(const std::string& token) const {
    if (token.empty()) fail("has an empty value");
    int v = 0;
    if (parse_int(token, v)) {
        if (v < spec_.min || v > spec_.max)
            fail(token + " out of range " + std::to_string(spec_.min) + "-" + std::to_string(spec_.max));
        return v;
    }
    if (spec_.names) {
        const auto it = std::find(spec_.names->begin(), spec_.names->end(), to_upper(token));
        if (it != spec_.names->end()) return spec_.first_name_value + static_cast<int>(it - spec_.names->begin());
    }
    fail("\"" + token + "\" is not a " + (spec_.names ? "number or name" : "number"));
}

int cron_field_parser::number_in(const std::string& token, int lo, int hi, const std::string& what) const {
    int v = 0;
    if (!parse_int(token, v)) fail(what + " \"" + token + "\" is not a number");
    if (v < lo || v > hi) fail(what + " " + token + " out of range " + std::to_string(lo) + "-" + std::to_string(hi));
    return v;
}

std::pair<int, int> cron_field_parser::bounds(const std::string& range, bool stepped) const {
    if (range == "?") fail("'?' is only allowed in day-of-month and day-of-week");
    if (range == "*") return {spec_.star_min, spec_.max};
    const auto dash = split(range, '-');
    if (dash.size() > 2) fail("\"" + range + "\" is not a range a-b");
    int lo = value(dash[0]);
    const int hi = dash.size() == 2 ? value(dash[1]) : (stepped ? spec_.max : lo);  // "a/n" runs to the max
    // `7-7` (SUN-SUN) stays Sunday alone: Spring reads it as every day, which nobody means.
    if (dash.size() == 2 && spec_.seven_starts_ranges_at_zero && lo == 7 && hi != 7) lo = 0;
    if (lo > hi) fail("range " + range + " is reversed; write the smaller value first");
    return {lo, hi};
}

void cron_field_parser::element(const std::string& text, std::bitset<64>& bits) const {
    const auto slash = split(text, '/');
    if (slash.size() > 2) fail("\"" + text + "\" has more than one '/'");
    const auto [lo, hi] = bounds(slash[0], slash.size() == 2);
    int step = 1;
    if (slash.size() == 2 && (!parse_int(slash[1], step) || step <= 0))
        fail("step \"" + slash[1] + "\" must be a positive number");
    // 64-bit: a step near INT_MAX (`1/2147483647`) must end the loop, not wrap below lo.
    for (long long v = lo; v <= hi; v += step) bits.set(static_cast<std::size_t>(v));
}

std::bitset<64> cron_field_parser::bits(std::string_view field) const {
    std::bitset<64> result;
    for (const auto& e : split(field, ',')) {
        if (e.empty()) fail("has an empty list element in \"" + std::string(field) + "\"");
        element(e, result);
    }
    return result;
}

}  // namespace shedlock::detail
