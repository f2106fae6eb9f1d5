#pragma once
// JSON string literals, shared by every JSON writer of the project (the CLI's --json output, the
// status server's API), so the escaping rules live in one place.

#include <string>
#include <string_view>

namespace shedlock::detail {

/// `s` as a JSON string literal in well-formed UTF-8, quotes included: `"` `\` and control
/// characters escaped; bytes that are not UTF-8 written as the text \xNN (see well_formed_utf8);
/// bidirectional formatting characters, C1 controls, U+2028 and U+2029 as \uXXXX (the parsed
/// value keeps them). So any bytes give a valid JSON string, and valid UTF-8 round-trips.
std::string json_string(std::string_view s);

}  // namespace shedlock::detail
