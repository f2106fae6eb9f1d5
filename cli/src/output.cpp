#include "output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace shedlock::cli {

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) == 1; }

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string format_table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (widths.size() <= i) widths.push_back(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

std::string iso_time(timestamp t) {
    std::string text = format_timestamp(t);
    text[10] = 'T';
    return text + "Z";
}

std::string human_duration(std::chrono::milliseconds d) {
    const bool negative = d.count() < 0;
    long long ms = negative ? -d.count() : d.count();
    const long long h = ms / 3'600'000, m = ms / 60'000 % 60, s = ms / 1000 % 60;
    char buf[48];
    if (h > 0) std::snprintf(buf, sizeof buf, "%lldh%02lldm", h, m);
    else if (m > 0) std::snprintf(buf, sizeof buf, "%lldm%02llds", m, s);
    else std::snprintf(buf, sizeof buf, "%lld.%03llds", s, ms % 1000);
    return (negative ? "-" : "") + std::string(buf);
}

}  // namespace shedlock::cli
