#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

TEST_CASE("lock_configuration keeps valid values", "[configuration]") {
    const lock_configuration c{"billing:reconcile:daily", "PT10M", "PT5S"};
    CHECK(c.name() == "billing:reconcile:daily");
    CHECK(c.lock_at_most_for() == milliseconds{600'000});
    CHECK(c.lock_at_least_for() == milliseconds{5000});
    CHECK(c.with_name("other").name() == "other");
    CHECK(lock_configuration(std::string(64, 'n'), milliseconds{1}).name().size() == 64);
}

TEST_CASE("lock_configuration rejects bad values with a message naming them", "[configuration]") {
    CHECK_THROWS_WITH(lock_configuration("", milliseconds{1}), Contains("empty"));
    CHECK_THROWS_WITH(lock_configuration(std::string(65, 'n'), milliseconds{1}),
                      Contains("65 characters") && Contains("at most 64"));
    CHECK_THROWS_WITH(lock_configuration("a\tb", milliseconds{1}), Contains("control character") && Contains("a\\x09b"));
    CHECK_THROWS_WITH(lock_configuration("n", milliseconds{0}), Contains("lock_at_most_for PT0S must be positive"));
    CHECK_THROWS_WITH(lock_configuration("n", milliseconds{-5}), Contains("must be positive"));
    CHECK_THROWS_WITH(lock_configuration("n", milliseconds{10}, milliseconds{-1}), Contains("must not be negative"));
    CHECK_THROWS_WITH(lock_configuration("n", "PT1M", "PT2M"),
                      Contains("lock_at_least_for PT2M is longer than lock_at_most_for PT1M"));
    CHECK_THROWS_WITH(lock_configuration("n", "60000"), Contains("lock_at_most_for \"60000\""));
    CHECK_THROWS_WITH(lock_configuration("n", "PT1M", "5x"), Contains("lock_at_least_for \"5x\""));
    CHECK_THROWS_AS(lock_configuration("n", "-PT1M"), configuration_error);
}

TEST_CASE("lock_configuration: lock_at_most_for has a documented maximum", "[configuration]") {
    // Regression: P4000000D wrote year 12978, after which no listing could read the table.
    CHECK_THROWS_WITH(lock_configuration("n", "P4000000D"), Contains("\"P4000000D\" is longer than"));
    CHECK_THROWS_WITH(lock_configuration("n", "P3651D"), Contains("longer than the maximum PT87600H") && Contains("3650 days"));
    CHECK(lock_configuration("n", "P3650D").lock_at_most_for() == max_lock_at_most_for);
}

TEST_CASE("lock names are counted in characters, as the VARCHAR(64) column counts them", "[configuration]") {
    // Regression: 40 x "ü" (80 bytes, 40 characters) was refused as "80 characters".
    std::string umlauts;
    for (int i = 0; i < 64; ++i) umlauts += "\xc3\xbc";
    CHECK(lock_configuration(umlauts, milliseconds{1}).name() == umlauts);
    CHECK_THROWS_WITH(lock_configuration(umlauts + "\xc3\xbc", milliseconds{1}), Contains("has 65 characters"));
    std::string cjk;
    for (int i = 0; i < 64; ++i) cjk += "\xe6\x97\xa5";  // 日, 3 bytes each
    CHECK_NOTHROW(lock_configuration(cjk, milliseconds{1}));
    CHECK_THROWS_WITH(lock_configuration("bad\xff", milliseconds{1}), Contains("not valid UTF-8") && Contains("bad\\xff"));
    CHECK_THROWS_WITH(lock_configuration("over\xc0\xaflong", milliseconds{1}), Contains("not valid UTF-8"));
    CHECK_THROWS_WITH(lock_configuration("c1\xc2\x9b", milliseconds{1}), Contains("control character"));
}
