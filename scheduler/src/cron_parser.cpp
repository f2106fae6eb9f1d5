// Parsing of the six cron fields into bit sets and day rules (Spring CronExpression syntax).
#include "cron_parser.hpp"

#include <shedlock/error.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace shedlock::detail {
namespace {

struct field_spec {
    const char* name;
    int min;
    int max;
    const std::vector<std::string>* names;  // names[i] means min_name + i
    int first_name_value;
};

const std::vector<std::string> month_names{"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                           "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
// As in Spring: MON = 1 .. SUN = 7 (and 0 is Sunday too).
const std::vector<std::string> day_names{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};

const field_spec second_spec{"second", 0, 59, nullptr, 0};
const field_spec minute_spec{"minute", 0, 59, nullptr, 0};
const field_spec hour_spec{"hour", 0, 23, nullptr, 0};
const field_spec dom_spec{"day-of-month", 1, 31, nullptr, 0};
const field_spec month_spec{"month", 1, 12, &month_names, 1};
const field_spec dow_spec{"day-of-week", 0, 7, &day_names, 1};

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

std::vector<std::string> split(std::string_view text, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto pos = text.find(sep, start);
        parts.emplace_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) return parts;
        start = pos + 1;
    }
}

class field_parser {
public:
    field_parser(std::string_view expression, const field_spec& spec) : expression_(expression), spec_(spec) {}

    [[noreturn]] void fail(const std::string& reason) const {
        throw configuration_error("\"" + std::string(expression_) + "\": " + spec_.name + " " + reason);
    }

    /// A number or (where the field has names) a name; checked against the field's range.
    int value(const std::string& token) const {
        if (token.empty()) fail("has an empty value");
        int v = 0;
        const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
        if (ec == std::errc{} && end == token.data() + token.size()) {
            if (v < spec_.min || v > spec_.max)
                fail(token + " out of range " + std::to_string(spec_.min) + "-" + std::to_string(spec_.max));
            return v;
        }
        if (spec_.names) {
            const auto it = std::find(spec_.names->begin(), spec_.names->end(), upper(token));
            if (it != spec_.names->end()) return spec_.first_name_value + static_cast<int>(it - spec_.names->begin());
        }
        fail("\"" + token + "\" is not a " + (spec_.names ? "number or name" : "number"));
    }

    /// `*`, `?`, `a`, `a-b`, each optionally `/step`; sets bits min..max of the field.
    void element(const std::string& text, std::bitset<64>& bits, bool question_allowed) const {
        const auto slash = split(text, '/');
        if (slash.size() > 2) fail("\"" + text + "\" has more than one '/'");
        const std::string& range = slash[0];
        int lo = spec_.min, hi = spec_.max;
        if (range == "?" && !question_allowed) fail("'?' is only allowed in day-of-month and day-of-week");
        if (range != "*" && range != "?") {
            const auto dash = split(range, '-');
            if (dash.size() > 2) fail("\"" + range + "\" is not a range a-b");
            lo = value(dash[0]);
            hi = dash.size() == 2 ? value(dash[1]) : (slash.size() == 2 ? spec_.max : lo);
            if (lo > hi) fail("range " + range + " is reversed; write the smaller value first");
        }
        int step = 1;
        if (slash.size() == 2) {
            const auto [end, ec] = std::from_chars(slash[1].data(), slash[1].data() + slash[1].size(), step);
            if (ec != std::errc{} || end != slash[1].data() + slash[1].size() || step <= 0)
                fail("step \"" + slash[1] + "\" must be a positive number");
        }
        for (int v = lo; v <= hi; v += step) bits.set(static_cast<std::size_t>(v));
    }

    std::bitset<64> bits(std::string_view field, bool question_allowed = false) const {
        std::bitset<64> result;
        for (const auto& e : split(field, ',')) {
            if (e.empty()) fail("has an empty list element in \"" + std::string(field) + "\"");
            element(e, result, question_allowed);
        }
        return result;
    }

private:
    std::string_view expression_;
    const field_spec& spec_;
};

template <std::size_t N>
std::bitset<N> narrow(const std::bitset<64>& wide) {
    std::bitset<N> out;
    for (std::size_t i = 0; i < N; ++i) out[i] = wide[i];
    return out;
}

int number_in(const field_parser& p, const std::string& token, int lo, int hi, const std::string& what) {
    int v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc{} || end != token.data() + token.size()) p.fail(what + " \"" + token + "\" is not a number");
    if (v < lo || v > hi)
        p.fail(what + " " + token + " out of range " + std::to_string(lo) + "-" + std::to_string(hi));
    return v;
}

cron_expression::day_of_month_rule parse_day_of_month(std::string_view expr, std::string_view field) {
    const field_parser p(expr, dom_spec);
    cron_expression::day_of_month_rule rule;
    for (const auto& raw : split(field, ',')) {
        const std::string e = upper(raw);
        if (e == "L") rule.before_last.push_back(0);
        else if (e == "LW") rule.last_weekday = true;
        else if (e.rfind("L-", 0) == 0) rule.before_last.push_back(number_in(p, e.substr(2), 1, 30, "offset of L-n"));
        else if (e.size() > 1 && e.back() == 'W') rule.nearest_weekday.push_back(number_in(p, e.substr(0, e.size() - 1), 1, 31, "day of nW"));
        else if (e.find_first_of("LW#") != std::string::npos) p.fail("\"" + raw + "\" is not a day, L, L-n, LW or nW");
        else {
            if (raw.empty()) p.fail("has an empty list element in \"" + std::string(field) + "\"");
            std::bitset<64> bits;
            p.element(raw, bits, true);
            rule.days |= narrow<32>(bits);
        }
    }
    return rule;
}

cron_expression::day_of_week_rule parse_day_of_week(std::string_view expr, std::string_view field) {
    const field_parser p(expr, dow_spec);
    cron_expression::day_of_week_rule rule;
    auto weekday = [&](const std::string& token) { return p.value(token) % 7; };  // 7 (SUN) -> 0
    for (const auto& raw : split(field, ',')) {
        const std::string e = upper(raw);
        const auto hash = e.find('#');
        if (hash != std::string::npos) {
            rule.nth.emplace_back(weekday(e.substr(0, hash)), number_in(p, e.substr(hash + 1), 1, 5, "week of n#k"));
        } else if (e.size() > 1 && e.back() == 'L') {
            rule.last_of_month.push_back(weekday(e.substr(0, e.size() - 1)));
        } else if (e == "L") {
            p.fail("\"L\" needs a weekday (e.g. 5L = last Friday)");
        } else {
            if (raw.empty()) p.fail("has an empty list element in \"" + std::string(field) + "\"");
            std::bitset<64> bits;
            p.element(raw, bits, true);
            if (bits[7]) bits.set(0);
            rule.days |= narrow<7>(bits);
        }
    }
    return rule;
}

std::optional<std::string> expand_macro(const std::string& text) {
    static const std::array<std::pair<const char*, const char*>, 7> macros{{
        {"@yearly", "0 0 0 1 1 *"}, {"@annually", "0 0 0 1 1 *"}, {"@monthly", "0 0 0 1 * *"},
        {"@weekly", "0 0 0 * * 0"}, {"@daily", "0 0 0 * * *"}, {"@midnight", "0 0 0 * * *"},
        {"@hourly", "0 0 * * * *"},
    }};
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [name, expansion] : macros)
        if (lower == name) return std::string(expansion);
    return std::nullopt;
}

}  // namespace

std::vector<std::string> split_cron_fields(std::string_view text) {
    std::vector<std::string> fields;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        const auto start = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) fields.emplace_back(text.substr(start, i - start));
    }
    return fields;
}

cron_expression::fields parse_cron_fields(const std::string& expression) {
    std::string body = expression;
    if (!body.empty() && body.front() == '@') {
        auto expanded = expand_macro(body);
        if (!expanded)
            throw configuration_error("\"" + expression +
                                      "\": unknown macro; use @yearly, @annually, @monthly, @weekly, @daily, "
                                      "@midnight or @hourly");
        body = *expanded;
    }
    const auto parts = split_cron_fields(body);
    if (parts.size() != 6)
        throw configuration_error("\"" + expression + "\": expected 6 fields (second minute hour day-of-month month "
                                  "day-of-week), got " + std::to_string(parts.size()));
    cron_expression::fields f;
    f.seconds = narrow<60>(field_parser(expression, second_spec).bits(parts[0]));
    f.minutes = narrow<60>(field_parser(expression, minute_spec).bits(parts[1]));
    f.hours = narrow<24>(field_parser(expression, hour_spec).bits(parts[2]));
    f.day_of_month = parse_day_of_month(expression, parts[3]);
    f.months = narrow<13>(field_parser(expression, month_spec).bits(parts[4]));
    f.day_of_week = parse_day_of_week(expression, parts[5]);
    return f;
}

}  // namespace shedlock::detail
