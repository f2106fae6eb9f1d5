#include "output.hpp"

#include <shedlock/detail/json_text.hpp>
#include <shedlock/utf8.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace shedlock::cli {

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) == 1; }

std::string json_string(const std::string& text) { return detail::json_string(text); }

namespace {

/// Characters a terminal shows for `s` (continuation bytes take no column).
std::size_t columns(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0) != 0x80;
    return n;
}

}  // namespace

std::string printable(const std::string& text) { return printable_text(text); }

std::string one_line(const std::string& text) {
    std::string flat = text;
    for (char& c : flat)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    return printable_text(flat);
}

std::string format_table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        auto& safe = cells.emplace_back();
        for (std::size_t i = 0; i < row.size(); ++i) {
            safe.push_back(printable(row[i]));
            if (widths.size() <= i) widths.push_back(0);
            widths[i] = std::max(widths[i], columns(safe.back()));
        }
    }
    std::string out;
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - columns(row[i]) + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

std::string iso_time(timestamp t) { return format_iso_timestamp(t); }

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
