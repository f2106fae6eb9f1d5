#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

TEST_CASE("parse_duration reads ISO-8601", "[duration]") {
    CHECK(parse_duration("PT30M") == milliseconds{30 * 60'000});
    CHECK(parse_duration("PT0.5S") == milliseconds{500});
    CHECK(parse_duration("PT2H") == milliseconds{2 * 3'600'000});
    CHECK(parse_duration("P1D") == milliseconds{86'400'000});
    CHECK(parse_duration("P1DT2H") == milliseconds{86'400'000 + 7'200'000});
    CHECK(parse_duration("PT1M30.25S") == milliseconds{90'250});
    CHECK(parse_duration("pt5s") == milliseconds{5000});
    CHECK(parse_duration("-PT1S") == milliseconds{-1000});
}

TEST_CASE("parse_duration reads the short form", "[duration]") {
    CHECK(parse_duration("500ms") == milliseconds{500});
    CHECK(parse_duration("30s") == milliseconds{30'000});
    CHECK(parse_duration("15m") == milliseconds{15 * 60'000});
    CHECK(parse_duration("2h") == milliseconds{7'200'000});
    CHECK(parse_duration("1d") == milliseconds{86'400'000});
    CHECK(parse_duration("1.5s") == milliseconds{1500});
    CHECK(parse_duration(" 10s ") == milliseconds{10'000});
}

TEST_CASE("parse_duration rejects bad input naming the field, the value and the fix", "[duration]") {
    CHECK_THROWS_WITH(parse_duration("60000", "lock_at_most_for"),
                      Contains("lock_at_most_for \"60000\"") && Contains("bare number") && Contains("PT30S") &&
                          Contains("30s"));
    CHECK_THROWS_WITH(parse_duration("PT"), Contains("\"PT\""));
    CHECK_THROWS_WITH(parse_duration("5x"), Contains("unknown unit \"x\""));
    CHECK_THROWS_AS(parse_duration(""), configuration_error);
    CHECK_THROWS_AS(parse_duration("P"), configuration_error);
    CHECK_THROWS_AS(parse_duration("PT5"), configuration_error);
    CHECK_THROWS_AS(parse_duration("P1M"), configuration_error);  // months have no fixed length
    CHECK_THROWS_AS(parse_duration("PT1.5M"), configuration_error);
    CHECK_THROWS_AS(parse_duration("PT0.0001S"), configuration_error);
    CHECK_THROWS_AS(parse_duration("PT1S1S"), configuration_error);
    CHECK_THROWS_AS(parse_duration("s"), configuration_error);
    CHECK_THROWS_AS(parse_duration("99999999999999999999d"), configuration_error);
}

TEST_CASE("parse_duration: values past the maximum are errors, never wrapped", "[duration]") {
    // Regressions: each of these used to wrap silently (26687997792d read as PT4H11M46S).
    for (const char* text : {"26687997792d", "PT3221222222H", "pt000003709551615H", "P106751991167D", "9223372036854775807ms",
                             "36501d", "P36500DT1S", "PT876000H0.001S", "-26687997792d"}) {
        INFO(text);
        CHECK_THROWS_WITH(parse_duration(text, "--at-most"),
                          Contains("--at-most \"" + std::string(text) + "\"") && Contains("longer than the longest duration") &&
                              Contains("36500 days"));
    }
    CHECK(parse_duration("36500d") == max_duration);
    CHECK(parse_duration("P36500D") == max_duration);
    CHECK(parse_duration("PT876000H") == max_duration);
    CHECK(parse_duration("-36500d") == -max_duration);
    CHECK(parse_duration("P000000000000000000000001D") == milliseconds{86'400'000});  // leading zeros are fine
}

TEST_CASE("format_duration round-trips", "[duration]") {
    for (const char* text : {"PT0S", "PT0.5S", "PT30M", "PT2H", "PT1H1M1.001S", "PT24H"})
        CHECK(format_duration(parse_duration(text)) == text);
}
