#include <shedlock/error.hpp>
#include <shedlock/time.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>

using namespace shedlock;
using namespace std::chrono;

TEST_CASE("timestamps format and parse as UTC text with milliseconds", "[time]") {
    const timestamp t = sys_days{year{2024} / June / 1} + hours{2} + minutes{3} + seconds{4} + milliseconds{56};
    CHECK(format_timestamp(t) == "2024-06-01 02:03:04.056");
    CHECK(parse_timestamp("2024-06-01 02:03:04.056") == t);
    CHECK(parse_timestamp("2024-06-01T02:03:04.056") == t);
    CHECK(parse_timestamp("2024-06-01 02:03:04.056789") == t);
    CHECK(parse_timestamp("2024-06-01 02:03:04") == t - milliseconds{56});
    CHECK_THROWS_AS(parse_timestamp("yesterday"), storage_error);
    CHECK_THROWS_AS(parse_timestamp("2024-02-30 00:00:00"), storage_error);
}

namespace {

/// The printf rendering format_timestamp used to be (and still is outside years 0..9999).
std::string printf_reference(timestamp t) {
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const hh_mm_ss<milliseconds> hms{t - day};
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02ld:%02ld:%02ld.%03ld", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                  static_cast<long>(hms.seconds().count()), static_cast<long>(hms.subseconds().count()));
    return buf;
}

}  // namespace

TEST_CASE("format_timestamp writes what printf wrote, at the edges and anywhere in between", "[time]") {
    const timestamp edges[] = {
        timestamp{},
        timestamp{} - milliseconds{1},  // 1969-12-31 23:59:59.999
        sys_days{year{0} / January / 1} + milliseconds{0},
        sys_days{year{9999} / December / 31} + hours{23} + minutes{59} + seconds{59} + milliseconds{999},
        sys_days{year{10000} / January / 1} + milliseconds{7},   // five-digit year: printf's rendering
        sys_days{year{-1} / March / 4} + milliseconds{5},        // negative year: printf's rendering
        sys_days{year{2024} / February / 29} + hours{12} + milliseconds{10},
    };
    for (const auto t : edges) CHECK(format_timestamp(t) == printf_reference(t));
    CHECK(format_timestamp(edges[3]) == "9999-12-31 23:59:59.999");
    std::mt19937_64 random{12};
    std::uniform_int_distribution<std::int64_t> any_ms(-62'167'219'200'000, 253'402'300'799'999);  // years 0..9999
    for (int i = 0; i < 100'000; ++i) {
        const timestamp t{milliseconds{any_ms(random)}};
        REQUIRE(format_timestamp(t) == printf_reference(t));
    }
}

TEST_CASE("manual_clock moves only when told", "[time]") {
    manual_clock clock;
    const auto start = clock.now();
    clock.advance(milliseconds{1500});
    CHECK(clock.now() - start == milliseconds{1500});
    CHECK(shedlock::system_clock::instance().now().time_since_epoch().count() > 0);
}
