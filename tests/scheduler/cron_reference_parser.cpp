// The reference parser: the grammar of docs/scheduler.md written out again, as plainly as
// possible, answering only "valid or not" (the product's messages are tested by tables).
#include "cron_reference.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <string>

namespace shedlock::test {
namespace {

using std::optional;
using std::string;

struct spec {
    int min, max;
    int star_from;                  // `*` on day-of-week runs MON(1)..SUN(7), as Spring
    std::vector<string> names;      // names[i] is value i + 1
    bool day_of_week = false;
};

const spec second_spec{0, 59, 0, {}};
const spec hour_spec{0, 23, 0, {}};
const spec day_spec{1, 31, 1, {}};
const spec month_spec{1, 12, 1, {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}};
const spec weekday_spec{0, 7, 1, {"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}, true};

std::vector<string> cut(const string& s, char sep) {
    std::vector<string> out{""};
    for (char c : s) {
        if (c == sep) out.emplace_back();
        else out.back().push_back(c);
    }
    return out;
}

string upper(string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// ASCII digits only: no sign, no other scripts' digits.
optional<int> number(const string& s) {
    if (s.empty()) return {};
    long long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return {};
        v = v * 10 + (c - '0');
        if (v > INT_MAX) return {};
    }
    return static_cast<int>(v);
}

optional<int> value(const string& s, const spec& f) {
    if (const auto n = number(s)) return *n >= f.min && *n <= f.max ? n : optional<int>{};
    const auto it = std::find(f.names.begin(), f.names.end(), upper(s));
    if (it == f.names.end()) return {};
    return static_cast<int>(it - f.names.begin()) + 1;
}

// One `*`, `a`, `a-b`, optionally `/n`, into `set` (indexed by value).
bool add_element(const string& e, const spec& f, std::vector<bool>& set) {
    const auto slash = cut(e, '/');
    if (slash.size() > 2) return false;
    int lo = f.star_from, hi = f.max;
    if (slash[0] != "*") {
        const auto dash = cut(slash[0], '-');
        if (dash.size() > 2) return false;
        const auto a = value(dash[0], f);
        const auto b = dash.size() == 2 ? value(dash[1], f) : (slash.size() == 2 ? f.max : a);
        if (!a || !b) return false;
        lo = *a;
        hi = *b;
        if (f.day_of_week && dash.size() == 2 && lo == 7 && hi != 7) lo = 0;
        if (lo > hi) return false;
    }
    const auto step = slash.size() == 2 ? number(slash[1]) : optional<int>{1};
    if (!step || *step == 0) return false;
    for (long long v = lo; v <= hi; v += *step) set[static_cast<std::size_t>(v)] = true;
    return true;
}

template <std::size_t N>
bool plain_field(const string& text, const spec& f, std::array<bool, N>& out) {
    std::vector<bool> set(64);
    for (const auto& e : cut(text, ','))
        if (e.empty() || !add_element(e, f, set)) return false;
    for (std::size_t i = 0; i < N; ++i) out[i] = set[i];
    return true;
}

}  // namespace

namespace reference {

optional<int> day_value(const string& s, bool day_of_week) {
    return value(s, day_of_week ? weekday_spec : day_spec);
}

optional<int> ascii_number(const string& s) { return number(s); }

bool plain_days(const string& e, bool day_of_week, std::vector<bool>& set) {
    set.assign(64, false);
    if (e.empty() || !add_element(e, day_of_week ? weekday_spec : day_spec, set)) return false;
    if (day_of_week && set[7]) set[0] = true;
    return true;
}

}  // namespace reference

namespace {

string trimmed(std::string_view raw) {
    const string text(raw);
    const auto b = text.find_first_not_of(" \t\r\n");
    return b == string::npos ? "" : text.substr(b, text.find_last_not_of(" \t\r\n") - b + 1);
}

// A macro's six fields; empty for an unknown macro.
optional<string> expand(const string& macro) {
    const std::vector<std::pair<string, string>> macros{
        {"@YEARLY", "0 0 0 1 1 *"}, {"@ANNUALLY", "0 0 0 1 1 *"}, {"@MONTHLY", "0 0 0 1 * *"},
        {"@WEEKLY", "0 0 0 * * 0"}, {"@DAILY", "0 0 0 * * *"},   {"@MIDNIGHT", "0 0 0 * * *"},
        {"@HOURLY", "0 0 * * * *"}};
    for (const auto& [name, fields] : macros)
        if (name == upper(macro)) return fields;
    return {};
}

std::vector<string> words(const string& text) {
    std::vector<string> out{""};
    for (char ch : text) {
        if (!std::isspace(static_cast<unsigned char>(ch))) out.back().push_back(ch);
        else if (!out.back().empty()) out.emplace_back();
    }
    if (out.back().empty()) out.pop_back();
    return out;
}

}  // namespace

optional<reference_cron> reference_cron::parse(std::string_view raw) {
    string text = trimmed(raw);
    reference_cron c;
    c.disabled = text == "-";
    if (c.disabled) return c;
    if (!text.empty() && text[0] == '@') {
        const auto fields = expand(text);
        if (!fields) return {};
        text = *fields;
    }
    const auto f = words(text);
    if (f.size() != 6) return {};
    const bool ok = plain_field(f[0], second_spec, c.seconds) && plain_field(f[1], second_spec, c.minutes) &&
                    plain_field(f[2], hour_spec, c.hours) && reference::days_of_month(f[3], c.days_of_month) &&
                    plain_field(f[4], month_spec, c.months) && reference::days_of_week(f[5], c.days_of_week);
    if (!ok) return {};
    return c;
}

}  // namespace shedlock::test
