#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>

namespace shedlock {
namespace {

using std::chrono::milliseconds;

constexpr std::int64_t ms_per_second = 1000;
constexpr std::int64_t ms_per_minute = 60 * ms_per_second;
constexpr std::int64_t ms_per_hour = 60 * ms_per_minute;
constexpr std::int64_t ms_per_day = 24 * ms_per_hour;

[[noreturn]] void reject(std::string_view field, std::string_view text, std::string_view why) {
    throw configuration_error(std::string(field) + " \"" + std::string(text) + "\" is not a duration (" +
                              std::string(why) +
                              "); write ISO-8601 like PT30S, PT0.5S, PT15M, PT2H, P1DT2H or the short form "
                              "500ms, 30s, 15m, 2h, 1d");
}

/// A decimal number "12" or "1.5" read from text at pos; value scaled to thousandths.
struct scaled_number {
    std::int64_t thousandths = 0;
    bool has_fraction = false;
};

/// Reads digits; a value past any possible maximum is `too_large` (leading zeros do not count).
std::optional<scaled_number> read_number(std::string_view s, std::size_t& pos, bool& too_large) {
    const std::size_t start = pos;
    std::int64_t whole = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        whole = whole * 10 + (s[pos++] - '0');
        if (whole > max_duration.count()) too_large = true;
        if (too_large) whole = 0;  // keep reading the digits, never overflow
    }
    if (pos == start) return std::nullopt;
    scaled_number n{whole * 1000, false};
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
        ++pos;
        const std::size_t frac_start = pos;
        std::int64_t scale = 100;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
            const int digit = s[pos++] - '0';
            if (scale == 0 && digit != 0) return std::nullopt;  // finer than a millisecond
            n.thousandths += digit * scale;
            scale /= 10;
        }
        if (pos == frac_start) return std::nullopt;
        n.has_fraction = true;
    }
    return n;
}

/// Multiplies thousandths of a unit by the unit's length in ms (the caller checked it lands on
/// whole ms); past max_duration it is `too_large` instead of wrapping.
std::int64_t to_ms(const scaled_number& n, std::int64_t unit_ms, bool& too_large) {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(n.thousandths, unit_ms, &product) || product / 1000 > max_duration.count()) {
        too_large = true;
        return 0;
    }
    return product / 1000;
}

bool whole_ms(const scaled_number& n, std::int64_t unit_ms) { return n.thousandths % 1000 * unit_ms % 1000 == 0; }

[[noreturn]] void reject_too_large(std::string_view field, std::string_view text) {
    throw configuration_error(std::string(field) + " \"" + std::string(text) + "\" is longer than the longest duration " +
                              format_duration(max_duration) + " (" + std::to_string(max_duration_days) +
                              " days); give a shorter one");
}

std::int64_t parse_iso(std::string_view text, std::string_view body, std::string_view field) {
    // body starts after 'P': [nD][T[nH][nM][n.nS]]
    std::size_t pos = 0;
    bool in_time = false;
    bool any = false;
    std::int64_t total = 0;
    bool too_large = false;
    std::string seen;
    while (pos < body.size()) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(body[pos])));
        if (c == 'T') {
            if (in_time) reject(field, text, "second 'T'");
            in_time = true;
            ++pos;
            if (pos == body.size()) reject(field, text, "nothing after 'T'");
            continue;
        }
        auto number = read_number(body, pos, too_large);
        if (!number) reject(field, text, "expected a number");
        if (pos == body.size()) reject(field, text, "number without a unit");
        const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(body[pos++])));
        std::int64_t unit_ms = 0;
        if (!in_time && unit == 'D') unit_ms = ms_per_day;
        else if (in_time && unit == 'H') unit_ms = ms_per_hour;
        else if (in_time && unit == 'M') unit_ms = ms_per_minute;
        else if (in_time && unit == 'S') unit_ms = ms_per_second;
        else if (!in_time && (unit == 'Y' || unit == 'M' || unit == 'W'))
            reject(field, text, "years, months and weeks have no fixed length; use days (P7D) or hours");
        else reject(field, text, std::string("unexpected unit '") + unit + "'");
        if (seen.find(unit) != std::string::npos) reject(field, text, std::string("unit '") + unit + "' twice");
        seen += unit;
        if (number->has_fraction && unit != 'S') reject(field, text, "only seconds may have a fraction");
        if (!whole_ms(*number, unit_ms)) reject(field, text, "finer than a millisecond");
        total += to_ms(*number, unit_ms, too_large);  // each term <= max_duration: no overflow
        if (total > max_duration.count()) too_large = true;
        any = true;
    }
    if (!any) reject(field, text, "no amount after 'P'/'PT'");
    if (too_large) reject_too_large(field, text);
    return total;
}

std::int64_t parse_short(std::string_view text, std::string_view body, std::string_view field) {
    std::size_t pos = 0;
    bool too_large = false;
    auto number = read_number(body, pos, too_large);
    if (!number) reject(field, text, "expected a number followed by ms, s, m, h or d");
    std::string unit;
    for (; pos < body.size(); ++pos) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(body[pos])));
    std::int64_t unit_ms = 0;
    if (unit == "ms") unit_ms = 1;
    else if (unit == "s") unit_ms = ms_per_second;
    else if (unit == "m" || unit == "min") unit_ms = ms_per_minute;
    else if (unit == "h") unit_ms = ms_per_hour;
    else if (unit == "d") unit_ms = ms_per_day;
    else if (unit.empty()) reject(field, text, "a bare number has no unit: 60000 could be ms or s");
    else reject(field, text, "unknown unit \"" + unit + "\"");
    if (!whole_ms(*number, unit_ms)) reject(field, text, "finer than a millisecond");
    const std::int64_t ms = to_ms(*number, unit_ms, too_large);
    if (too_large) reject_too_large(field, text);
    return ms;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

milliseconds parse_duration(std::string_view text, std::string_view field) {
    std::string_view body = trim(text);
    if (body.empty()) reject(field, text, "empty");
    bool negative = false;
    if (body.front() == '-' || body.front() == '+') {
        negative = body.front() == '-';
        body.remove_prefix(1);
    }
    if (body.empty()) reject(field, text, "sign without a value");
    const bool iso = body.front() == 'P' || body.front() == 'p';
    const std::int64_t ms = iso ? parse_iso(text, body.substr(1), field) : parse_short(text, body, field);
    return milliseconds{negative ? -ms : ms};
}

std::string format_duration(milliseconds d) {
    std::int64_t ms = d.count();
    std::string out = ms < 0 ? "-PT" : "PT";
    if (ms < 0) ms = -ms;
    const std::int64_t hours = ms / ms_per_hour;
    const std::int64_t minutes = ms % ms_per_hour / ms_per_minute;
    const std::int64_t rest = ms % ms_per_minute;
    if (hours) out += std::to_string(hours) + "H";
    if (minutes) out += std::to_string(minutes) + "M";
    if (rest || (!hours && !minutes)) {
        out += std::to_string(rest / 1000);
        if (rest % 1000) {
            std::string frac = std::to_string(1000 + rest % 1000).substr(1);
            while (frac.back() == '0') frac.pop_back();
            out += "." + frac;
        }
        out += "S";
    }
    return out;
}

}  // namespace shedlock
