#pragma once
// A strict JSON reader for tests of the JSON the project writes (status server API, CLI --json):
// it accepts exactly RFC 8259 documents in well-formed UTF-8, so a test can say "this parses"
// without trusting the writer it checks.

#include <optional>
#include <string>
#include <string_view>

namespace shedlock::test {

/// Empty when `text` is one valid JSON document in well-formed UTF-8; else why not, with the
/// byte offset ("invalid UTF-8 at byte 57").
std::optional<std::string> json_problem(std::string_view text);

/// The value of the JSON string literal `literal` (quotes included), or empty when it is not
/// exactly one valid string literal.
std::optional<std::string> json_string_value(std::string_view literal);

}  // namespace shedlock::test
