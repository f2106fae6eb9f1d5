// The generator's weights keep most expressions firing at least monthly: a brute-force reference
// that walks a rare expression's 100-year horizon day by day is the slow part of the test.
#include "cron_random_expression.hpp"

#include <cctype>

namespace shedlock::test {
namespace {

const std::vector<const char*> month_names{"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                           "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
const std::vector<const char*> day_names{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};

// Valid or not, each names a rule the parsers must agree on (signs, other scripts' digits,
// `?` inside a list, lower-case L/W, Sunday-first ranges, k > 5, ...).
const std::vector<const char*> common_edges{"+5", "\xd9\xa5", "5-3", "*/0", "1/2/3", "1-2-3", ",1", "1,", "-1",
                                            "1/-2", "05", "1-", "/2", "*/", "a", "?", "1/+2", "2/2147483647"};
const std::vector<std::vector<const char*>> field_edges{
    {"60", "59", "0-59/60", "0-59/59"},
    {"60", "0/30", "30-29"},
    {"24", "23", "2-3/1"},
    {"?/2", "?,1", "1,?", "l", "lw", "15w", "L-0", "L-31", "L-30", "32W", "0W", "W", "LW,L", "L-1,15W", "1#2",
     "L5", "31W", "0", "32", "1W,LW", "L-1W", "*,L"},
    {"13", "0", "jan-dec", "DEC-JAN", "FEB/2", "JAN-", "JANUARY", "nov-Dec"},
    {"?/2", "?,1", "1#6", "1#0", "MON#5", "8", "7-1", "SUN-SAT", "7-0", "7-7", "SUN-SUN", "6-1", "7-7/2", "L", "5l",
     "fril", "SUN#1", "0L", "7L", "*/2", "0/2", "7/2", "7-3/2", "#2", "1#", "1L#2", "sun-mon", "0-7", "SUN-7"},
};

}  // namespace

const char* cron_expression_generator::one_of(const std::vector<const char*>& texts) {
    return texts[static_cast<std::size_t>(pick(0, static_cast<int>(texts.size()) - 1))];
}

std::string cron_expression_generator::mixed_case(std::string name) {
    for (char& c : name)
        if (chance(0.3)) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

std::string cron_expression_generator::time_value(int max, const std::vector<int>& hot) {
    if (chance(0.5)) return std::to_string(hot[static_cast<std::size_t>(pick(0, static_cast<int>(hot.size()) - 1))]);
    return std::to_string(pick(0, max));
}

std::string cron_expression_generator::time_element(int max, const std::vector<int>& hot) {
    const auto step = [&] { return "/" + std::to_string(chance(0.8) ? pick(1, max / 2 + 1) : pick(1, 100)); };
    const int a = std::stoi(time_value(max, hot));
    const int b = pick(a, max);
    switch (pick(0, 9)) {
        case 4: return "*";
        case 5: return "*" + step();
        case 6: return std::to_string(a) + step();
        case 7: return std::to_string(a) + "-" + std::to_string(b);
        case 8: return std::to_string(a) + "-" + std::to_string(b) + step();
        default: return std::to_string(a);
    }
}

std::string cron_expression_generator::time_field(int max, const std::vector<int>& hot) {
    std::string field = time_element(max, hot);
    if (chance(0.3))
        for (int i = pick(1, 2); i > 0; --i) field += "," + time_element(max, hot);
    return field;
}

std::string cron_expression_generator::day_of_month_element() {
    const int a = chance(0.3) ? pick(28, 31) : pick(1, 28);
    const auto step = [&] { return "/" + std::to_string(pick(1, 12)); };
    switch (pick(0, 11)) {
        case 1: return std::to_string(pick(25, 31)) + "-31";
        case 2: return std::to_string(a) + "-" + std::to_string(pick(a, 31));
        case 3: return "*" + step();
        case 4: return std::to_string(a) + step();
        case 5: return "L";
        case 6: return "L-" + std::to_string(chance(0.8) ? pick(1, 5) : pick(1, 30));
        case 7: return "LW";
        case 8: return std::to_string(chance(0.5) ? pick(1, 3) : pick(27, 31)) + "W";
        case 9: return std::to_string(pick(1, 31)) + "W";
        case 10: return std::to_string(a) + "-" + std::to_string(pick(a, 31)) + step();
        case 11: return "*";
        default: return std::to_string(a);
    }
}

std::string cron_expression_generator::day_of_month() {
    const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (r < 0.30) return "*";
    if (r < 0.45) return "?";
    std::string field = day_of_month_element();
    if (r > 0.90)
        for (int i = pick(1, 2); i > 0; --i) field += "," + day_of_month_element();
    return field;
}

std::string cron_expression_generator::month_value() {
    const int m = pick(1, 12);
    return chance(0.4) ? mixed_case(month_names[static_cast<std::size_t>(m - 1)]) : std::to_string(m);
}

std::string cron_expression_generator::month() {
    const int a = pick(1, 12);
    switch (pick(0, 19)) {
        case 0: case 1: return "*/" + std::to_string(pick(1, 4));
        case 2: case 3: return std::to_string(a) + "/" + std::to_string(pick(1, 4));
        case 4: case 5: {
            std::string field = month_value();
            for (int i = pick(2, 5); i > 0; --i) field += "," + month_value();
            return field;
        }
        case 6: return std::to_string(a) + "-" + std::to_string(pick(a, 12));
        case 7: return mixed_case(month_names[static_cast<std::size_t>(a - 1)]) + "-" + month_names[11];
        case 8: return month_value();
        default: return "*";
    }
}

std::string cron_expression_generator::weekday_value() {
    const int w = pick(0, 7);
    if (w == 0 || chance(0.5)) return std::to_string(w);
    return mixed_case(day_names[static_cast<std::size_t>(w - 1)]);
}

std::string cron_expression_generator::day_of_week_element() {
    const int a = pick(0, 7);
    const int b = a == 7 && chance(0.7) ? pick(0, 6) : pick(a, 7);  // 7-b starts at Sunday (0)
    const auto step = [&] { return "/" + std::to_string(pick(1, 4)); };
    switch (pick(0, 11)) {
        case 2: case 3: return std::to_string(a) + "-" + std::to_string(b);
        case 4: return a == 7 ? "SUN-" + std::string(day_names[static_cast<std::size_t>(pick(0, 6))]) : "*" + step();
        case 5: return "*" + step();
        case 6: return std::to_string(a) + step();
        case 7: return std::to_string(a) + "-" + std::to_string(b) + step();
        case 8: return weekday_value() + (chance(0.2) ? "l" : "L");
        case 9: case 10: return weekday_value() + "#" + std::to_string(pick(1, 5));
        case 11: return "*";
        default: return weekday_value();
    }
}

std::string cron_expression_generator::day_of_week() {
    const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (r < 0.30) return "*";
    if (r < 0.45) return "?";
    std::string field = day_of_week_element();
    if (r > 0.90)
        for (int i = pick(1, 2); i > 0; --i) field += "," + day_of_week_element();
    return field;
}

// Short strings over the grammar's own alphabet: the parsers must agree on these too.
std::string cron_expression_generator::junk_token() {
    static const std::string alphabet = "0123456789*/-,?LW#lw7SUNMONjanDEC+";
    std::string token;
    const int last = static_cast<int>(alphabet.size()) - 1;
    for (int i = pick(1, 6); i > 0; --i) token.push_back(alphabet[static_cast<std::size_t>(pick(0, last))]);
    return token;
}

std::string cron_expression_generator::edge_token(int field) {
    if (chance(0.3)) return junk_token();
    return chance(0.3) ? one_of(common_edges) : one_of(field_edges[static_cast<std::size_t>(field)]);
}

std::string cron_expression_generator::expression() {
    if (chance(0.01))
        return mixed_case(one_of({"@YEARLY", "@ANNUALLY", "@MONTHLY", "@WEEKLY", "@DAILY", "@MIDNIGHT", "@HOURLY"}));
    std::vector<std::string> f{chance(0.4) ? "0" : time_field(59, {0, 1, 30, 59}),
                               chance(0.25) ? "0" : time_field(59, {0, 15, 30, 45, 59}),
                               time_field(23, {0, 1, 1, 2, 2, 2, 3}),
                               day_of_month(),
                               month(),
                               day_of_week()};
    if (chance(0.1)) {
        const int i = pick(0, 5);
        f[static_cast<std::size_t>(i)] = edge_token(i);
    }
    std::string text = f[0];
    for (std::size_t i = 1; i < f.size(); ++i) text += (chance(0.05) ? "  " : " ") + f[i];
    return text;
}

}  // namespace shedlock::test
