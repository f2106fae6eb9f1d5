#pragma once
// JSON string literals, shared by every JSON writer of the project (the CLI's --json output, the
// status server's API), so the escaping rules live in one place.

#include <string>
#include <string_view>

namespace shedlock::detail {

/// `s` as a JSON string literal, quotes included: `"` `\` and control characters escaped.
std::string json_string(std::string_view s);

}  // namespace shedlock::detail
