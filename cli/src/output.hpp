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

/// `text` safe to print on a terminal: control characters (C0, DEL, the C1 range U+0080-U+009F
/// that terminals also obey) and bytes that are not UTF-8 become \xNN, so a stored value can
/// never move the cursor, recolour the screen or retitle the window.
std::string printable(const std::string& text);

/// `text` as one printable line, for a log line or a report line that others' text (a server's
/// error reply, libpq's two-line messages) ends up in: line breaks and tabs become spaces, the
/// rest as printable() shows it, so no message can forge a line of its own or drive the terminal.
std::string one_line(const std::string& text);

/// Columns padded to their widest cell (in characters); the first row is the header. Every
/// cell is passed through printable().
std::string format_table(const std::vector<std::vector<std::string>>& rows);

/// "2024-06-01T02:00:00.123Z"
std::string iso_time(timestamp t);

/// "4m12s", "-3s", "1h02m": short human durations.
std::string human_duration(std::chrono::milliseconds d);

}  // namespace shedlock::cli
