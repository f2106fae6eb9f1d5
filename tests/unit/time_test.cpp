#include <shedlock/error.hpp>
#include <shedlock/time.hpp>

#include <catch2/catch.hpp>

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

TEST_CASE("manual_clock moves only when told", "[time]") {
    manual_clock clock;
    const auto start = clock.now();
    clock.advance(milliseconds{1500});
    CHECK(clock.now() - start == milliseconds{1500});
    CHECK(shedlock::system_clock::instance().now().time_since_epoch().count() > 0);
}
