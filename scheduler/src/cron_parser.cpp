// The six fields of a cron expression (Spring CronExpression syntax), and the day fields'
// special forms: L, L-n, LW, nW in day-of-month; nL, n#k in day-of-week.
#include "cron_field_parser.hpp"
#include "cron_parser.hpp"

#include <shedlock/error.hpp>

#include <array>
#include <cctype>

namespace shedlock::detail {
namespace {

// Spring accepts `?` only as the whole field; inside a list, range or step it is an error.
void reject_inner_question_mark(const cron_field_parser& p, std::string_view field) {
    if (field.find('?') != std::string_view::npos)
        p.fail("\"" + std::string(field) + "\" uses '?' inside a list, range or step; '?' must be the whole "
               "field, so write \"?\" alone or use '*' there");
}

// The values one plain list element (`*`, `a`, `a-b`, each optionally `/n`) covers.
std::bitset<64> plain_element(const cron_field_parser& p, std::string_view field, const std::string& raw) {
    if (raw.empty()) p.fail("has an empty list element in \"" + std::string(field) + "\"");
    std::bitset<64> bits;
    p.element(raw, bits);
    return bits;
}

void day_of_month_element(const cron_field_parser& p, std::string_view field, const std::string& e,
                          cron_expression::day_of_month_rule& rule) {
    // Upper case only, as in Spring, so an expression accepted here also runs under Spring.
    if (e.find_first_of("lw") != std::string::npos)
        p.fail("\"" + e + "\": L and W must be upper case; write \"" + to_upper(e) + "\"");
    if (e == "L") rule.before_last.push_back(0);
    else if (e == "LW") rule.last_weekday = true;
    else if (e.rfind("L-", 0) == 0) rule.before_last.push_back(p.number_in(e.substr(2), 1, 30, "offset of L-n"));
    else if (e.size() > 1 && e.back() == 'W')
        rule.nearest_weekday.push_back(p.number_in(e.substr(0, e.size() - 1), 1, 31, "day of nW"));
    else if (e.find_first_of("LW#") != std::string::npos) p.fail("\"" + e + "\" is not a day, L, L-n, LW or nW");
    else rule.days |= narrow<32>(plain_element(p, field, e));
}

cron_expression::day_of_month_rule parse_day_of_month(std::string_view expr, std::string_view field) {
    const cron_field_parser p(expr, day_of_month_field);
    cron_expression::day_of_month_rule rule;
    if (field == "?") return rule;  // no restriction
    reject_inner_question_mark(p, field);
    for (const auto& raw : split(field, ',')) day_of_month_element(p, field, raw, rule);
    return rule;
}

void day_of_week_element(const cron_field_parser& p, std::string_view field, const std::string& raw,
                         cron_expression::day_of_week_rule& rule) {
    const std::string e = to_upper(raw);
    auto weekday = [&](const std::string& token) { return p.value(token) % 7; };  // 7 (SUN) -> 0
    const auto hash = e.find('#');
    if (hash != std::string::npos) {
        rule.nth.emplace_back(weekday(e.substr(0, hash)), p.number_in(e.substr(hash + 1), 1, 5, "week of n#k"));
    } else if (e.size() > 1 && e.back() == 'L') {
        rule.last_of_month.push_back(weekday(e.substr(0, e.size() - 1)));
    } else if (e == "L") {
        p.fail("\"L\" needs a weekday (e.g. 5L = last Friday)");
    } else {
        auto bits = plain_element(p, field, raw);
        if (bits[7]) bits.set(0);
        rule.days |= narrow<7>(bits);
    }
}

cron_expression::day_of_week_rule parse_day_of_week(std::string_view expr, std::string_view field) {
    const cron_field_parser p(expr, day_of_week_field);
    cron_expression::day_of_week_rule rule;
    if (field == "?") return rule;  // no restriction
    reject_inner_question_mark(p, field);
    for (const auto& raw : split(field, ',')) day_of_week_element(p, field, raw, rule);
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
    f.seconds = narrow<60>(cron_field_parser(expression, second_field).bits(parts[0]));
    f.minutes = narrow<60>(cron_field_parser(expression, minute_field).bits(parts[1]));
    f.hours = narrow<24>(cron_field_parser(expression, hour_field).bits(parts[2]));
    f.day_of_month = parse_day_of_month(expression, parts[3]);
    f.months = narrow<13>(cron_field_parser(expression, month_field).bits(parts[4]));
    f.day_of_week = parse_day_of_week(expression, parts[5]);
    return f;
}

}  // namespace shedlock::detail
