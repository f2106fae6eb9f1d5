// The reference's day fields, each special form written from its definition in the docs
// ("the weekday nearest to day n, without leaving the month") rather than as a formula.
#include "cron_reference.hpp"

#include <cctype>
#include <cstdlib>

namespace shedlock::test::reference {
namespace {

using rule = reference_cron::day_rule;
using std::optional;
using std::string;

bool is_weekday(int w) { return w >= 1 && w <= 5; }

int last_weekday(const day_facts& f) {
    int d = f.last;
    while (!is_weekday(f.weekday_of(d))) --d;
    return d;
}

// The Monday-to-Friday day of this month closest to n (the docs' rule; no ties can occur).
int nearest_weekday(const day_facts& f, int n) {
    int best = 0;
    for (int d = 1; d <= f.last; ++d)
        if (is_weekday(f.weekday_of(d)) && (best == 0 || std::abs(d - n) < std::abs(best - n))) best = d;
    return best;
}

optional<int> number_in(const string& text, int lo, int hi) {
    const auto n = ascii_number(text);
    if (!n || *n < lo || *n > hi) return {};
    return n;
}

optional<rule> day_of_month_rule(const string& e) {
    if (e.find_first_of("lw") != string::npos) return {};  // L and W are upper case only
    if (e == "L") return rule([](const day_facts& f) { return f.day == f.last; });
    if (e == "LW") return rule([](const day_facts& f) { return f.day == last_weekday(f); });
    if (e.rfind("L-", 0) == 0) {
        const auto n = number_in(e.substr(2), 1, 30);
        if (!n) return {};
        return rule([n = *n](const day_facts& f) { return f.day == f.last - n; });
    }
    if (e.size() > 1 && e.back() == 'W') {
        const auto n = number_in(e.substr(0, e.size() - 1), 1, 31);
        if (!n) return {};
        return rule([n = *n](const day_facts& f) { return n <= f.last && f.day == nearest_weekday(f, n); });
    }
    std::vector<bool> set;
    if (!plain_days(e, false, set)) return {};
    return rule([set](const day_facts& f) { return set[static_cast<std::size_t>(f.day)]; });
}

optional<int> weekday(const string& text) {
    const auto v = day_value(text, true);
    return v ? optional<int>(*v % 7) : optional<int>{};
}

optional<rule> day_of_week_rule(string e) {
    for (char& c : e) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const auto hash = e.find('#'); hash != string::npos) {
        const auto w = weekday(e.substr(0, hash));
        const auto k = number_in(e.substr(hash + 1), 1, 5);
        if (!w || !k) return {};
        return rule([w = *w, k = *k](const day_facts& f) {
            int seen = 0;
            for (int d = 1; d <= f.day; ++d) seen += f.weekday_of(d) == w;
            return f.weekday_of(f.day) == w && seen == k;
        });
    }
    if (e.size() > 1 && e.back() == 'L') {
        const auto w = weekday(e.substr(0, e.size() - 1));
        if (!w) return {};
        return rule([w = *w](const day_facts& f) {
            for (int d = f.day + 1; d <= f.last; ++d)
                if (f.weekday_of(d) == w) return false;
            return f.weekday_of(f.day) == w;
        });
    }
    std::vector<bool> set;
    if (e == "L" || !plain_days(e, true, set)) return {};
    return rule([set](const day_facts& f) { return set[static_cast<std::size_t>(f.weekday_of(f.day))]; });
}

template <typename Make>
bool day_field(const string& field, std::vector<rule>& rules, Make make) {
    if (field == "?") return true;  // no restriction
    if (field.find('?') != string::npos) return false;
    string element;
    for (std::size_t i = 0; i <= field.size(); ++i) {
        if (i < field.size() && field[i] != ',') {
            element.push_back(field[i]);
            continue;
        }
        auto r = make(element);
        if (!r) return false;
        rules.push_back(std::move(*r));
        element.clear();
    }
    return true;
}

}  // namespace

bool days_of_month(const string& field, std::vector<rule>& rules) {
    return day_field(field, rules, day_of_month_rule);
}

bool days_of_week(const string& field, std::vector<rule>& rules) {
    return day_field(field, rules, day_of_week_rule);
}

}  // namespace shedlock::test::reference
