#pragma once
// Parsing of one cron field: values, names, ranges, steps; messages name the expression and field.

#include <bitset>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shedlock::detail {

struct cron_field_spec {
    const char* name;                        ///< "hour", "day-of-week", ... as in messages
    int min;
    int max;
    int star_min;                            ///< first value of `*`: day-of-week runs MON(1)..SUN(7)
    const std::vector<std::string>* names = nullptr;  ///< names[i] means first_name_value + i
    int first_name_value = 0;
    bool seven_starts_ranges_at_zero = false;  ///< day-of-week: `SUN-WED` is 0-3, not reversed
};

extern const cron_field_spec second_field, minute_field, hour_field, day_of_month_field, month_field, day_of_week_field;

class cron_field_parser {
public:
    cron_field_parser(std::string_view expression, const cron_field_spec& spec) : expression_(expression), spec_(spec) {}

    /// Throws configuration_error `"<expression>": <field> <reason>`.
    [[noreturn]] void fail(const std::string& reason) const;
    /// A number or (where the field has names) a name, checked against the field's range.
    int value(const std::string& token) const;
    /// A number in lo..hi for a part of a special form (`L-n`, `nW`, `n#k`); `what` names it.
    int number_in(const std::string& token, int lo, int hi, const std::string& what) const;
    /// `*`, `a`, `a-b`, each optionally `/step`: sets the bits of the values it covers.
    void element(const std::string& text, std::bitset<64>& bits) const;
    /// A comma-separated list of elements.
    std::bitset<64> bits(std::string_view field) const;

private:
    /// The values `*`, `a`, `a-b` (and `a/n`, which runs to the max when `stepped`) cover.
    std::pair<int, int> bounds(const std::string& range, bool stepped) const;

    std::string_view expression_;
    const cron_field_spec& spec_;
};

std::vector<std::string> split(std::string_view text, char separator);
std::string to_upper(std::string_view text);

template <std::size_t N>
std::bitset<N> narrow(const std::bitset<64>& wide) {
    std::bitset<N> out;
    for (std::size_t i = 0; i < N; ++i) out[i] = wide[i];
    return out;
}

}  // namespace shedlock::detail
