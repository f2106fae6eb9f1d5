// Conformance: invalid names and durations are rejected before any backend call.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <cctype>

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

TEST_CASE("conformance: names compare byte for byte", "[conformance][validation]") {
    // Regression: on MySQL/MariaDB the default collation made all of these one lock with
    // "Report-é" (case, accents, trailing space folded).
    fixture f;
    const std::string base = fixture::unique_name("Report-\xc3\xa9");
    auto held = f.provider().try_lock({base, f.lease(2)});
    REQUIRE(held);
    const std::string stem = base.substr(0, base.size() - 2);  // without the "é"
    std::string lower = base;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string upper = stem;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& other : {lower, upper + "\xc3\x89", stem + "e", stem + "\xc3\xa8", base + " "}) {
        INFO("name \"" << other << "\"");
        CHECK(f.provider().try_lock({other, f.lease(2)}));
    }
    CHECK_FALSE(f.provider().try_lock({base, f.lease(2)}));
    std::size_t listed = 0;
    try {
        for (const auto& record : f.inspector().list_locks()) listed += record.name == base;
        CHECK(listed == 1);
    } catch (const unsupported_operation_error&) {
    }
}

TEST_CASE("conformance: a name of 64 multi-byte characters fits", "[conformance][validation]") {
    // Regression: the length was checked in bytes; Java ShedLock stores 64 characters.
    fixture f;
    const std::string prefix = fixture::unique_name("");  // ASCII: one byte per character
    std::string name = prefix;
    for (std::size_t i = prefix.size(); i < 64; ++i) name += "\xc3\xbc";  // ü: 2 bytes, 1 character
    auto held = f.provider().try_lock({name, f.lease(2)});
    REQUIRE(held);
    CHECK_FALSE(f.provider().try_lock({name, f.lease(2)}));
    std::string widest = fixture::unique_name("");
    for (std::size_t i = widest.size(); i < 64; ++i) widest += "\xf0\x9f\x94\x92";  // 🔒: 4 bytes, 1 character
    CHECK(f.provider().try_lock({widest, f.lease(2)}));
}
