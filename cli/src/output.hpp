#pragma once
// Human tables for a terminal, JSON for scripts.

#include <shedlock/time.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace shedlock::cli {

/// True when stdout is a terminal.
bool stdout_is_tty();

/// A JSON string literal with escapes.
std::string json_string(const std::string& text);

/// Columns padded to their widest cell; the first row is the header.
std::string format_table(const std::vector<std::vector<std::string>>& rows);

/// "2024-06-01T02:00:00.123Z"
std::string iso_time(timestamp t);

/// "4m12s", "-3s", "1h02m": short human durations.
std::string human_duration(std::chrono::milliseconds d);

}  // namespace shedlock::cli
