// cron_expression::next() against tables: fields, names, L/W/#, macros, leap years, month ends,
// rollovers, and DST in northern, southern, +05:30 and 30-minute-shift zones.
#include "time_text.hpp"

#include <shedlock/cron_expression.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace shedlock;
using shedlock::test::at;
using shedlock::test::local_text;

namespace {

struct next_case {
    const char* expression;
    const char* zone;
    const char* after;
    std::vector<const char*> expected;  // successive firings, each with its offset
};

void check_table(const std::vector<next_case>& table) {
    for (const auto& c : table) {
        const auto cron = cron_expression::parse(c.expression);
        auto t = at(c.after);
        for (const char* want : c.expected) {
            INFO(c.expression << " in " << c.zone << " after " << local_text(t, c.zone));
            const auto got = cron.next(t, locate_time_zone(c.zone));
            REQUIRE(got.has_value());
            CHECK(local_text(*got, c.zone) == want);
            t = *got;
        }
    }
}

}  // namespace

TEST_CASE("cron: fields, lists, ranges, steps and names", "[cron]") {
    check_table({
        {"0 0 2 * * ?", "UTC", "2024-06-01T01:00:00Z", {"2024-06-01T02:00:00+00:00", "2024-06-02T02:00:00+00:00"}},
        {"*/15 * * * * *", "UTC", "2024-06-01T10:00:07Z", {"2024-06-01T10:00:15+00:00", "2024-06-01T10:00:30+00:00"}},
        {"7/15 * * * * *", "UTC", "2024-06-01T12:00:52Z", {"2024-06-01T12:01:07+00:00", "2024-06-01T12:01:22+00:00"}},
        {"10-40/10 * * * * *", "UTC", "2024-06-01T12:00:40Z", {"2024-06-01T12:01:10+00:00"}},
        {"0 15,45 8-9 * * *", "UTC", "2024-06-01T08:50:00Z",
         {"2024-06-01T09:15:00+00:00", "2024-06-01T09:45:00+00:00", "2024-06-02T08:15:00+00:00"}},
        {"0 30 9 * jan-mar,DEC mon-fri", "UTC", "2024-03-29T10:00:00Z", {"2024-12-02T09:30:00+00:00"}},
        {"0 0 0 * * 0", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"0 0 0 * * 7", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"0 0 0 * * sun", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"0 0 0 * * SAT-SUN", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00", "2024-06-08T00:00:00+00:00"}},
        {"0 0 0 13 * FRI", "UTC", "2024-01-01T00:00:00Z", {"2024-09-13T00:00:00+00:00", "2024-12-13T00:00:00+00:00"}},
        {"  0  0  12 * *  *  ", "UTC", "2024-06-01T12:00:00Z", {"2024-06-02T12:00:00+00:00"}},
        // Regression: a step near INT_MAX wrapped the loop below the range (exit 70, bitset::set).
        {"1/2147483647 * * * * *", "UTC", "2024-06-01T12:00:00Z", {"2024-06-01T12:00:01+00:00", "2024-06-01T12:01:01+00:00"}},
        {"0 0/2147483647 * * * *", "UTC", "2024-06-01T12:00:30Z", {"2024-06-01T13:00:00+00:00"}},
    });
}

TEST_CASE("cron: month ends, leap years and rollovers", "[cron]") {
    check_table({
        {"0 0 0 29 2 *", "UTC", "2023-03-01T00:00:00Z", {"2024-02-29T00:00:00+00:00", "2028-02-29T00:00:00+00:00"}},
        {"0 0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z", {"2104-02-29T00:00:00+00:00"}},  // 2100 is no leap year
        {"0 0 0 31 * *", "UTC", "2024-04-01T00:00:00Z", {"2024-05-31T00:00:00+00:00", "2024-07-31T00:00:00+00:00"}},
        {"0 0 12 31 12 *", "UTC", "2024-12-31T12:00:00Z", {"2025-12-31T12:00:00+00:00"}},
        {"59 59 23 31 12 *", "UTC", "2024-12-31T23:59:58Z", {"2024-12-31T23:59:59+00:00", "2025-12-31T23:59:59+00:00"}},
        {"0 0 0 1 * *", "Asia/Kolkata", "2024-01-31T18:30:00Z", {"2024-03-01T00:00:00+05:30"}},
    });
}

TEST_CASE("cron: L, L-n, LW, nW, nL and n#k", "[cron]") {
    check_table({
        {"0 0 0 L * *", "UTC", "2024-02-10T00:00:00Z", {"2024-02-29T00:00:00+00:00", "2024-03-31T00:00:00+00:00"}},
        {"0 0 0 L * *", "UTC", "2023-02-10T00:00:00Z", {"2023-02-28T00:00:00+00:00"}},
        {"0 0 0 L-2 * *", "UTC", "2024-02-01T00:00:00Z", {"2024-02-27T00:00:00+00:00", "2024-03-29T00:00:00+00:00"}},
        {"0 0 0 LW * *", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00", "2024-07-31T00:00:00+00:00"}},
        {"0 0 0 15W * *", "UTC", "2024-06-01T00:00:00Z", {"2024-06-14T00:00:00+00:00", "2024-07-15T00:00:00+00:00"}},
        {"0 0 0 1W * *", "UTC", "2024-05-31T00:00:00Z", {"2024-06-03T00:00:00+00:00"}},    // Sat 1st -> Mon 3rd
        {"0 0 0 30W * *", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00"}},   // Sun 30th -> Fri 28th
        {"0 0 0 * * 5L", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00", "2024-07-26T00:00:00+00:00"}},
        {"0 0 0 ? * FRIL", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00"}},
        {"0 0 0 ? * MON#2", "UTC", "2024-06-01T00:00:00Z", {"2024-06-10T00:00:00+00:00", "2024-07-08T00:00:00+00:00"}},
        {"0 0 0 ? * 1#5", "UTC", "2024-06-01T00:00:00Z", {"2024-07-29T00:00:00+00:00"}},  // June has 4 Mondays
        {"0 0 0 1,L * *", "UTC", "2024-02-02T00:00:00Z", {"2024-02-29T00:00:00+00:00", "2024-03-01T00:00:00+00:00"}},
    });
}

TEST_CASE("cron: day-of-week steps run over MON..SUN and Sunday-first ranges start at 0, as Spring", "[cron]") {
    // 2024-06-01 is a Saturday.
    check_table({
        {"0 0 0 * * */2", "UTC", "2024-06-01T00:00:00Z",  // 1,3,5,7
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-05T00:00:00+00:00",
          "2024-06-07T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 * * 0/2", "UTC", "2024-06-01T00:00:00Z",  // 0,2,4,6
         {"2024-06-02T00:00:00+00:00", "2024-06-04T00:00:00+00:00", "2024-06-06T00:00:00+00:00",
          "2024-06-08T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 * * */3", "UTC", "2024-06-01T00:00:00Z",  // MON, THU, SUN
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-06T00:00:00+00:00"}},
        {"0 0 0 ? * SUN-SAT", "UTC", "2024-06-01T00:00:00Z",
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-04T00:00:00+00:00"}},
        {"0 0 0 ? * 7-1", "UTC", "2024-06-01T00:00:00Z",
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 ? * 7-3", "UTC", "2024-06-01T00:00:00Z",
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-04T00:00:00+00:00",
          "2024-06-05T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 ? * 7-0", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 ? * sun-tue", "UTC", "2024-06-01T00:00:00Z",
         {"2024-06-02T00:00:00+00:00", "2024-06-03T00:00:00+00:00", "2024-06-04T00:00:00+00:00",
          "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 ? * 5l", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00"}},  // day-of-week: any case
        {"0 0 0 ? * mon#1", "UTC", "2024-06-01T00:00:00Z", {"2024-06-03T00:00:00+00:00"}},
    });
}

TEST_CASE("cron: deliberate differences from Spring", "[cron]") {
    check_table({
        // 7-7 and SUN-SUN are Sunday alone (Spring: every day).
        {"0 0 0 ? * 7-7", "UTC", "2024-06-01T00:00:00Z", {"2024-06-02T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        {"0 0 0 ? * SUN-SUN", "UTC", "2024-06-01T00:00:00Z",
         {"2024-06-02T00:00:00+00:00", "2024-06-09T00:00:00+00:00"}},
        // nW on a Sunday that ends the month fires the Friday before (Spring: no firing that month).
        {"0 0 0 31W * *", "UTC", "2024-03-01T00:00:00Z", {"2024-03-29T00:00:00+00:00", "2024-05-31T00:00:00+00:00"}},
        {"0 0 0 30W 6 *", "UTC", "2024-06-01T00:00:00Z", {"2024-06-28T00:00:00+00:00", "2025-06-30T00:00:00+00:00"}},
    });
    // n#k with k > 5 (Spring: parses, never fires); a sign or non-ASCII digits (Java's parseInt takes both).
    const std::vector<std::pair<const char*, const char*>> rejected{
        {"0 0 0 ? * MON#6", "week of n#k 6 out of range 1-5"},
        {"+5 * * * * *", "second \"+5\" is not a number"},
        {"0 0 0 ? * +5", "day-of-week \"+5\" is not a number or name"},
        {"0 0 \xd9\xa5 * * *", "hour \"\xd9\xa5\" is not a number"},  // U+0665 ARABIC-INDIC DIGIT FIVE
        {"0 0 0 1-\xef\xbc\x95 * *", "day-of-month \"\xef\xbc\x95\" is not a number"},  // U+FF15 FULLWIDTH FIVE
    };
    for (const auto& [expression, message] : rejected) {
        INFO(expression);
        CHECK_THROWS_WITH(cron_expression::parse(expression), Catch::Contains(message));
    }
    // Australia/Lord_Howe's 30-minute gap: see "Asia/Kolkata (+05:30) and Australia/Lord_Howe" above.
}

TEST_CASE("cron: macros", "[cron]") {
    check_table({
        {"@hourly", "UTC", "2024-06-01T10:30:00Z", {"2024-06-01T11:00:00+00:00"}},
        {"@daily", "UTC", "2024-06-01T10:30:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"@midnight", "UTC", "2024-06-01T10:30:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"@weekly", "UTC", "2024-06-01T10:30:00Z", {"2024-06-02T00:00:00+00:00"}},
        {"@monthly", "UTC", "2024-06-01T10:30:00Z", {"2024-07-01T00:00:00+00:00"}},
        {"@YEARLY", "UTC", "2024-06-01T10:30:00Z", {"2025-01-01T00:00:00+00:00"}},
        {"@annually", "UTC", "2024-06-01T10:30:00Z", {"2025-01-01T00:00:00+00:00"}},
    });
}

TEST_CASE("cron: DST in Europe/Berlin and America/New_York", "[cron][dst]") {
    check_table({
        // spring forward 02:00 -> 03:00: 02:30 does not exist, so that day has no firing
        {"0 30 2 * * *", "Europe/Berlin", "2024-03-30T03:00:00+01:00", {"2024-04-01T02:30:00+02:00"}},
        {"0 0 * * * *", "Europe/Berlin", "2024-03-31T01:00:00+01:00", {"2024-03-31T03:00:00+02:00"}},
        // fall back 03:00 -> 02:00: 02:30 happens twice and fires once per offset
        {"0 30 2 * * *", "Europe/Berlin", "2024-10-26T03:00:00+02:00",
         {"2024-10-27T02:30:00+02:00", "2024-10-27T02:30:00+01:00", "2024-10-28T02:30:00+01:00"}},
        {"0 */30 * * * *", "Europe/Berlin", "2024-10-27T02:50:00+02:00",
         {"2024-10-27T02:00:00+01:00", "2024-10-27T02:30:00+01:00", "2024-10-27T03:00:00+01:00"}},
        {"0 30 2 * * *", "America/New_York", "2024-03-09T03:00:00-05:00", {"2024-03-11T02:30:00-04:00"}},
        {"0 30 1 * * *", "America/New_York", "2024-11-02T02:00:00-04:00",
         {"2024-11-03T01:30:00-04:00", "2024-11-03T01:30:00-05:00", "2024-11-04T01:30:00-05:00"}},
    });
}

TEST_CASE("cron: the gap day is skipped, not moved to 03:30", "[cron][dst]") {
    const auto cron = cron_expression::parse("0 30 2 * * *");
    const auto& berlin = locate_time_zone("Europe/Berlin");
    const auto next = cron.next(at("2024-03-31T01:59:59+01:00"), berlin);
    REQUIRE(next);
    CHECK(local_text(*next, "Europe/Berlin") == "2024-04-01T02:30:00+02:00");
    CHECK(*next - at("2024-03-31T01:59:59+01:00") > std::chrono::hours{23});
}

TEST_CASE("cron: DST in Australia/Sydney (southern hemisphere)", "[cron][dst]") {
    check_table({
        // spring forward in October: 02:00 -> 03:00
        {"0 30 2 * * *", "Australia/Sydney", "2024-10-05T03:00:00+10:00", {"2024-10-07T02:30:00+11:00"}},
        // fall back in April: 03:00 -> 02:00
        {"0 30 2 * * *", "Australia/Sydney", "2024-04-06T03:00:00+11:00",
         {"2024-04-07T02:30:00+11:00", "2024-04-07T02:30:00+10:00", "2024-04-08T02:30:00+10:00"}},
        {"0 0 12 * * *", "Australia/Sydney", "2024-01-01T00:00:00Z", {"2024-01-01T12:00:00+11:00"}},
    });
}

TEST_CASE("cron: Asia/Kolkata (+05:30) and Australia/Lord_Howe (30-minute DST shift)", "[cron][dst]") {
    check_table({
        {"0 0 9 * * *", "Asia/Kolkata", "2024-06-01T00:00:00Z", {"2024-06-01T09:00:00+05:30", "2024-06-02T09:00:00+05:30"}},
        {"0 0 0 * * *", "Asia/Kolkata", "2024-06-01T18:29:59Z", {"2024-06-02T00:00:00+05:30"}},
        // Lord Howe springs forward 02:00 -> 02:30 (+10:30 -> +11:00)
        {"0 15 2 * * *", "Australia/Lord_Howe", "2024-10-05T03:00:00+10:30", {"2024-10-07T02:15:00+11:00"}},
        {"0 45 2 * * *", "Australia/Lord_Howe", "2024-10-05T03:00:00+10:30", {"2024-10-06T02:45:00+11:00"}},
        {"0 0 * * * *", "Australia/Lord_Howe", "2024-10-06T01:00:00+10:30", {"2024-10-06T03:00:00+11:00"}},
        // and falls back 02:00 -> 01:30 (+11:00 -> +10:30): 01:45 happens twice
        {"0 45 1 * * *", "Australia/Lord_Howe", "2024-04-06T02:00:00+11:00",
         {"2024-04-07T01:45:00+11:00", "2024-04-07T01:45:00+10:30", "2024-04-08T01:45:00+10:30"}},
    });
}

TEST_CASE("cron: expressions that never fire", "[cron]") {
    const auto& utc = locate_time_zone("UTC");
    CHECK_FALSE(cron_expression::parse("0 0 0 30 2 *").next(at("2024-01-01T00:00:00Z"), utc));
    const auto disabled = cron_expression::parse("-");
    CHECK(disabled.disabled());
    CHECK_FALSE(disabled.next(at("2024-01-01T00:00:00Z"), utc));
}

TEST_CASE("cron: invalid expressions name the field and the reason", "[cron][validation]") {
    const std::vector<std::pair<const char*, const char*>> table{
        {"0 0 25 * * *", "\"0 0 25 * * *\": hour 25 out of range 0-23"},
        {"60 * * * * *", "second 60 out of range 0-59"},
        {"0 60 * * * *", "minute 60 out of range 0-59"},
        {"* * * 32 * *", "day-of-month 32 out of range 1-31"},
        {"* * * 0 * *", "day-of-month 0 out of range 1-31"},
        {"* * * * 13 *", "month 13 out of range 1-12"},
        {"* * * * FOO *", "month \"FOO\" is not a number or name"},
        {"* * * * * 8", "day-of-week 8 out of range 0-7"},
        {"* * * * * FUN", "day-of-week \"FUN\" is not a number or name"},
        {"0 0 * * *", "expected 6 fields"},
        {"0 0 0 * * * 2024", "got 7"},
        {"*/0 * * * * *", "second step \"0\" must be a positive number"},
        {"0 0 5-3 * * *", "hour range 5-3 is reversed"},
        {"? * * * * *", "'?' is only allowed in day-of-month and day-of-week"},
        {"0 0 1,,2 * * *", "hour has an empty list element"},
        {"@often", "unknown macro"},
        {"0 0 0 L-31 * *", "offset of L-n 31 out of range 1-30"},
        {"0 0 0 32W * *", "day of nW 32 out of range 1-31"},
        {"0 0 0 * * 1#6", "week of n#k 6 out of range 1-5"},
        {"0 0 0 * * L", "\"L\" needs a weekday"},
        {"0 0 0 5X * *", "day-of-month \"5X\" is not a number"},
        // '?' only as the whole field, as Spring
        {"0 0 0 ?/2 * *", "day-of-month \"?/2\" uses '?' inside a list, range or step"},
        {"0 0 0 ? * ?/2", "day-of-week \"?/2\" uses '?' inside a list, range or step; '?' must be the whole field"},
        {"0 0 0 ? * ?,1", "day-of-week \"?,1\" uses '?'"},
        {"0 0 0 1,? * *", "day-of-month \"1,?\" uses '?'"},
        // L and W are upper case only in day-of-month, as Spring
        {"0 0 0 l * *", "day-of-month \"l\": L and W must be upper case; write \"L\""},
        {"0 0 0 lw * *", "write \"LW\""},
        {"0 0 0 15w * *", "write \"15W\""},
        {"0 0 0 L-1,l * *", "day-of-month \"l\""},
        // only a range that starts at Sunday (7) may wrap
        {"0 0 0 ? * 3-1", "day-of-week range 3-1 is reversed"},
        {"0 0 0 ? * SAT-MON", "day-of-week range SAT-MON is reversed"},
        {"", "cron expression is empty"},
    };
    for (const auto& [expression, message] : table) {
        INFO(expression);
        CHECK_THROWS_WITH(cron_expression::parse(expression), Catch::Contains(message));
        CHECK_THROWS_AS(cron_expression::parse(expression), configuration_error);
    }
}

TEST_CASE("cron: unknown time zone is a configuration error naming it", "[cron][validation]") {
    CHECK_THROWS_WITH(locate_time_zone("Mars/Olympus_Mons"), Catch::Contains("\"Mars/Olympus_Mons\""));
    CHECK(&locate_time_zone("Europe/Berlin") == &locate_time_zone("Europe/Berlin"));
}
