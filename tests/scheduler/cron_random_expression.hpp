#pragma once
// Random cron expressions for the differential test: every documented form, biased to fire often
// (so the brute-force reference stays fast) and towards the hours and minutes where DST bites.

#include <random>
#include <string>
#include <vector>

namespace shedlock::test {

class cron_expression_generator {
public:
    explicit cron_expression_generator(std::mt19937_64& rng) : rng_(rng) {}

    /// Six fields (or, rarely, a macro). About one in ten has one field swapped for an edge-case
    /// token or a short random string, valid or not, so the two parsers' verdicts are compared too.
    std::string expression();

    /// Picks from a list of texts.
    const char* one_of(const std::vector<const char*>& texts);

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    std::string mixed_case(std::string name);

    std::string time_value(int max, const std::vector<int>& hot);
    std::string time_element(int max, const std::vector<int>& hot);
    std::string time_field(int max, const std::vector<int>& hot);
    std::string day_of_month_element();
    std::string day_of_month();
    std::string month_value();
    std::string month();
    std::string weekday_value();
    std::string day_of_week_element();
    std::string day_of_week();
    std::string junk_token();
    std::string edge_token(int field);

    std::mt19937_64& rng_;
};

}  // namespace shedlock::test
