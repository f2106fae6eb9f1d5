#pragma once
/// \file
/// Durations as people write them in configuration.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace shedlock {

/// The longest duration any setting accepts: 100 years (36,500 days). Longer text is an error,
/// never a wrap-around, and `now + max_duration` fits every clock's range.
inline constexpr std::int64_t max_duration_days = 36'500;
inline constexpr std::chrono::milliseconds max_duration{max_duration_days * 86'400'000LL};

/// Parses an ISO-8601 duration (`PT30M`, `PT0.5S`, `PT2H`, `P1D`, `P1DT2H`) or the short form
/// (`500ms`, `30s`, `15m`, `2h`, `1d`) to milliseconds. A bare number (`60000`) is rejected
/// because its unit is ambiguous. Negative values (`-PT1S`, `-5s`) parse; the caller decides
/// whether they are allowed. Throws configuration_error naming `field` and `text` and showing
/// the accepted spellings; a magnitude above max_duration is such an error too.
std::chrono::milliseconds parse_duration(std::string_view text, std::string_view field = "duration");

/// ISO-8601 text of a duration, e.g. `PT1M30S`, `PT0.5S`, `PT0S`.
std::string format_duration(std::chrono::milliseconds d);

}  // namespace shedlock
