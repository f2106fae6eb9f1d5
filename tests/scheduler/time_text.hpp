#pragma once
// "2024-03-31T02:30:00+02:00" <-> timestamp, so test tables state local time AND offset.

#include <shedlock/time.hpp>

#include <string>

namespace shedlock::test {

/// Parses `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `+HH:MM` / `-HH:MM`.
timestamp at(const std::string& text);

/// Formats `t` as local time in `zone` with its offset, e.g. "2024-03-31T03:00:00+02:00".
std::string local_text(timestamp t, const std::string& zone);

}  // namespace shedlock::test
