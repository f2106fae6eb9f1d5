// detail::json_string: every JSON string the project writes goes through it, so its output must be
// a valid JSON string in well-formed UTF-8 whatever bytes it is given.
#include "json_check.hpp"

#include <shedlock/detail/json_text.hpp>

#include <catch2/catch.hpp>

using shedlock::detail::json_string;
using shedlock::test::json_problem;
using shedlock::test::json_string_value;

TEST_CASE("json_string: quotes, backslashes and controls are escaped", "[json]") {
    CHECK(json_string("a\"b\\c\nd\te\x01") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    CHECK(json_string("plain caf\xc3\xa9 \xf0\x9f\x94\x92") == "\"plain caf\xc3\xa9 \xf0\x9f\x94\x92\"");
}

TEST_CASE("json_string: bytes that are not UTF-8 become visible xNN text and never go out raw", "[json]") {
    // An exception message with 0xff, a Latin-1 name: one raw byte made the whole response invalid.
    for (const std::string raw : {"boom \xff", "name-\xe9-latin1", "\xc3", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong"}) {
        INFO(raw);
        const auto literal = json_string(raw);
        CHECK_FALSE(json_problem(literal));
    }
    CHECK(json_string("boom \xff") == "\"boom \\\\xff\"");
    CHECK(json_string_value(json_string("name-\xe9-latin1")) == "name-\\xe9-latin1");
    CHECK(json_string_value(json_string("\xc3")) == "\\xc3");  // a truncated sequence
}

TEST_CASE("json_string: invisible characters that reorder or break text are written as u-escapes", "[json]") {
    // Same value once parsed; but a raw U+202E reverses what a terminal or a viewer shows, and a
    // raw U+2028 ends a line in JavaScript source.
    CHECK(json_string("a\xe2\x80\xae" "b") == "\"a\\u202eb\"");
    CHECK(json_string("\xe2\x80\xa8") == "\"\\u2028\"");
    CHECK(json_string("\xc2\x9b") == "\"\\u009b\"");  // C1 CSI
    CHECK(json_string_value(json_string("a\xe2\x80\xae" "b")) == "a\xe2\x80\xae" "b");
}
