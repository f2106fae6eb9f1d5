#include "status_text.hpp"

#include <shedlock/utf8.hpp>

#include <cctype>
#include <cstdio>
#include <limits>

namespace shedlock::detail {

std::string html_escape(std::string_view text) {
    const std::string s = well_formed_utf8(text);  // the page is served as UTF-8
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string redact_uri_passwords(std::string_view s) {
    std::string out;
    std::size_t pos = 0;
    for (auto scheme = s.find("://"); scheme != std::string_view::npos; scheme = s.find("://", pos)) {
        const auto authority = scheme + 3;
        const auto end = s.find_first_of("/ \t\n\"'?#", authority);
        const auto at = s.rfind('@', end == std::string_view::npos ? s.size() : end);
        const auto colon = s.find(':', authority);
        if (at != std::string_view::npos && at >= authority && colon != std::string_view::npos && colon < at) {
            out.append(s.substr(pos, colon + 1 - pos)).append("***");
            pos = at;
        } else {
            out.append(s.substr(pos, authority - pos));
            pos = authority;
        }
    }
    out.append(s.substr(pos));
    return out;
}

std::string iso_utc(timestamp t) {
    auto text = format_timestamp(t);  // "2024-06-01 02:00:00.123"
    if (text.size() > 10 && text[10] == ' ') text[10] = 'T';
    return text + "Z";
}

namespace {

/// "2 min 5 s", or "2 min" when the smaller unit is 0.
std::string two_units(long long big, const char* big_unit, long long small, const char* small_unit) {
    return std::to_string(big) + " " + big_unit + (small ? " " + std::to_string(small) + " " + small_unit : "");
}

}  // namespace

std::string readable_duration(std::chrono::milliseconds d) {
    const long long ms = d.count();
    if (ms < 0) return "-" + readable_duration(std::chrono::milliseconds{ms == std::numeric_limits<long long>::min() ? std::numeric_limits<long long>::max() : -ms});
    if (ms < 1000) return std::to_string(ms) + " ms";
    if (ms < 10'000) {  // one decimal, truncated: 9.99 s is "9.9 s", never "10.0 s"
        const long long tenths = ms / 100;
        return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " s";
    }
    const long long s = ms / 1000;
    if (s < 60) return std::to_string(s) + " s";
    if (s < 3600) return two_units(s / 60, "min", s % 60, "s");
    if (s < 86'400) return two_units(s / 3600, "h", s / 60 % 60, "min");
    return two_units(s / 86'400, "d", s / 3600 % 24, "h");
}

std::string query_value(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (std::isalnum(b) || c == '-' || c == '_' || c == '.' || c == '~') out += c;
        else out += {'%', hex[b >> 4], hex[b & 15]};
    }
    return out;
}

}  // namespace shedlock::detail
