// Conformance: invalid names and durations are rejected before any backend call.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::conformance;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

TEST_CASE("conformance: name and duration validation", "[conformance][validation]") {
    fixture f;
    CHECK_THROWS_WITH(lock_configuration("", milliseconds{1000}), Contains("empty"));
    CHECK_THROWS_WITH(lock_configuration(std::string(65, 'x'), milliseconds{1000}), Contains("65 characters"));
    CHECK_THROWS_WITH(lock_configuration("bad\nname", milliseconds{1000}), Contains("\\x0a"));
    CHECK_THROWS_WITH(lock_configuration("n", milliseconds{0}), Contains("must be positive"));
    CHECK_THROWS_WITH(lock_configuration("n", milliseconds{1000}, milliseconds{2000}), Contains("longer than"));
    CHECK_THROWS_AS(lock_configuration("n", "60000"), configuration_error);
    // A 64-character name is the longest that fits the column, and it works on the backend.
    const std::string longest = fixture::unique_name("") + std::string(64 - fixture::unique_name("").size(), 'x');
    CHECK(f.provider().try_lock({longest.substr(0, 64), f.lease(1)}));
}

TEST_CASE("conformance: names with unusual characters are stored verbatim", "[conformance][validation]") {
    fixture f;
    const std::string name = fixture::unique_name("ü'\";--%_*");
    auto held = f.provider().try_lock({name, f.lease(2)});
    REQUIRE(held);
    CHECK_FALSE(f.provider().try_lock({name, f.lease(2)}));
    CHECK(f.provider().try_lock({name + "x", f.lease(2)}));
}
