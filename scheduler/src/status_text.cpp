#include "status_text.hpp"

#include <shedlock/utf8.hpp>

#include <cstdio>

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

}  // namespace shedlock::detail
