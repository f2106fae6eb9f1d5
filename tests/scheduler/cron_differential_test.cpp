// cron_expression::next() against an independent brute-force reference (cron_reference.hpp) on
// random expressions, zones and start instants, most of them near DST transitions. A mismatch
// prints the seed, the expression, the zone, the start and both answers; SHEDLOCK_CRON_SEED=<n>
// repeats a run.
#include "cron_random_expression.hpp"
#include "cron_reference.hpp"
#include "time_text.hpp"

#include <shedlock/cron_expression.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>

using namespace shedlock;
using namespace std::chrono;
using shedlock::test::local_text;

namespace {

constexpr int expression_count = 12'000;
constexpr int firings_per_expression = 4;

std::uint64_t chosen_seed() {
    const char* env = std::getenv("SHEDLOCK_CRON_SEED");
    if (env == nullptr) return 20'240'331;
    try {
        return std::stoull(env);
    } catch (const std::exception&) {
        throw std::invalid_argument("SHEDLOCK_CRON_SEED \"" + std::string(env) +
                                    "\" is not a number; set a decimal seed such as 20240331, or unset it");
    }
}

struct zone_case {
    std::string name;
    const date::time_zone* zone;
    std::vector<date::sys_seconds> transitions;  ///< UTC-offset changes 1890..2036
};

zone_case make_zone(const std::string& name) {
    zone_case z{name, date::locate_zone(name), {}};
    const date::sys_seconds end{date::sys_days{date::year{2037} / 1 / 1}};
    auto info = z.zone->get_info(date::sys_seconds{date::sys_days{date::year{1890} / 1 / 1}});
    while (info.end < end) {
        z.transitions.push_back(info.end);
        info = z.zone->get_info(info.end);
    }
    return z;
}

// Mostly in the day before a transition, often on a quarter hour give or take a second; else
// anywhere in 1890-2036 (the only choice for UTC), and rarely in years 1-9999. Old transitions
// are odd: local mean time, war time, double summer time, changes at midnight.
timestamp start_instant(std::mt19937_64& rng, const zone_case& z) {
    const auto uniform = [&](long long lo, long long hi) {
        return std::uniform_int_distribution<long long>(lo, hi)(rng);
    };
    seconds t{uniform(-2'524'521'600, 2'114'380'799)};  // 1890..2036
    if (uniform(0, 49) == 0) t = seconds{uniform(-62'135'596'800, 253'402'300'799)};  // years 1..9999
    if (!z.transitions.empty() && uniform(0, 9) < 8) {
        t = z.transitions[static_cast<std::size_t>(uniform(0, static_cast<long long>(z.transitions.size()) - 1))]
                .time_since_epoch() + seconds{uniform(-26 * 3600, 2 * 3600)};
        if (uniform(0, 1) == 0) t = t - t % 900 + seconds{uniform(-1, 1)};
    }
    return timestamp{t + milliseconds{uniform(0, 4) == 0 ? uniform(1, 999) : 0}};
}

struct tally {
    int valid = 0, rejected = 0, firings = 0, fold_firings = 0, across_transition = 0, never = 0;
    std::vector<std::string> mismatches;
};

std::string text_of(const std::optional<timestamp>& t, const zone_case& z) {
    return t ? local_text(*t, z.name) : "none";
}

void count_firing(timestamp after, timestamp t, const zone_case& z, tally& out) {
    ++out.firings;
    const auto local = z.zone->to_local(date::floor<seconds>(t));
    if (z.zone->get_info(local).result == date::local_info::ambiguous) ++out.fold_firings;
    const auto first_after = std::upper_bound(z.transitions.begin(), z.transitions.end(), after);
    if (first_after != z.transitions.end() && *first_after <= t) ++out.across_transition;
}

void compare_firings(const cron_expression& product, const test::reference_cron& reference, const std::string& text,
                     const zone_case& z, timestamp after, tally& out) {
    for (int k = 0; k < firings_per_expression; ++k) {
        const auto got = product.next(after, *z.zone);
        const auto want = reference.next(after, *z.zone);
        if (got != want) {
            out.mismatches.push_back("\"" + text + "\" in " + z.name + " after " + text_of(after, z) + " (+" +
                                     std::to_string(after.time_since_epoch().count() % 1000) + " ms): product " +
                                     text_of(got, z) + ", reference " + text_of(want, z));
            return;
        }
        if (!got) {
            ++out.never;
            return;
        }
        count_firing(after, *got, z, out);
        after = *got;
    }
}

void compare(const std::string& text, const zone_case& z, timestamp start, tally& out) {
    std::optional<cron_expression> product;
    std::string product_error;
    try {
        product = cron_expression::parse(text);
    } catch (const configuration_error& e) {
        product_error = e.what();
    }
    const auto reference = test::reference_cron::parse(text);
    if (product.has_value() != reference.has_value()) {
        const std::string verdict = product ? "accepts" : "rejects (" + product_error + ")";
        out.mismatches.push_back("\"" + text + "\": product " + verdict + ", reference " +
                                 (reference ? "accepts" : "rejects"));
        return;
    }
    if (!product) {
        ++out.rejected;
        return;
    }
    ++out.valid;
    compare_firings(*product, *reference, text, z, start, out);
}

}  // namespace

TEST_CASE("cron: next() agrees with a brute-force reference on random expressions", "[cron][differential]") {
    const auto seed = chosen_seed();
    std::cout << "cron differential: seed " << seed << " (SHEDLOCK_CRON_SEED=<n> to repeat or vary)\n";
    std::vector<zone_case> zones;
    for (const char* name : {"UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
                             "Australia/Lord_Howe"})
        zones.push_back(make_zone(name));
    std::mt19937_64 rng(seed);
    test::cron_expression_generator generate(rng);
    tally out;
    for (int i = 0; i < expression_count; ++i) {
        const auto& z = zones[std::uniform_int_distribution<std::size_t>(0, zones.size() - 1)(rng)];
        const auto text = generate.expression();
        compare(text, z, start_instant(rng, z), out);
    }
    std::cout << "cron differential: " << expression_count << " expressions (" << out.valid << " valid, "
              << out.rejected << " rejected by both), " << out.firings << " firings agreed (" << out.fold_firings
              << " in a repeated hour, " << out.across_transition << " across an offset change), " << out.never
              << " ran out of firings, " << out.mismatches.size() << " mismatches\n";
    std::ostringstream first;
    for (std::size_t i = 0; i < std::min<std::size_t>(out.mismatches.size(), 20); ++i)
        first << out.mismatches[i] << "\n";
    INFO("seed " << seed << "; first mismatches:\n" << first.str());
    CHECK(out.mismatches.empty());
    // The run must keep exercising what it is for: mostly valid expressions, DST folds, firings.
    CHECK(out.valid > expression_count * 8 / 10);
    CHECK(out.rejected > expression_count / 50);
    CHECK(out.firings > out.valid * 3);
    CHECK(out.fold_firings > 200);
    CHECK(out.across_transition > 2000);
}
