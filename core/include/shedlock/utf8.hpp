#pragma once
/// \file
/// UTF-8 decoding shared by lock-name validation and terminal-safe output.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace shedlock {

/// One decoded character: its code point and how many bytes it took.
struct utf8_char {
    char32_t code_point;
    std::size_t length;
};

/// The well-formed UTF-8 sequence starting at `pos`, or empty for a malformed, truncated,
/// overlong or surrogate sequence (which a strict decoder must reject).
std::optional<utf8_char> decode_utf8_at(std::string_view text, std::size_t pos);

/// C0 controls, DEL and C1 controls (U+0080..U+009F; U+009B is an 8-bit CSI to a terminal).
bool is_control_character(char32_t cp) noexcept;

/// `text` for a message or a terminal: well-formed printable characters as they are, every other
/// byte (controls, C1 controls, malformed UTF-8) as \xNN, so the output never carries terminal
/// escapes or broken text. With `max_bytes`, the output stops once it has that many bytes and
/// ends with "..." (an over-long value is named, not echoed in full).
std::string printable_text(std::string_view text, std::size_t max_bytes = std::string_view::npos);

}  // namespace shedlock
