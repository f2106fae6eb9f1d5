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

/// Bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069):
/// invisible, and they reorder the text after them wherever it is shown (a terminal, a page, an
/// editor), so `evil\u202Etxt.exe` reads as `evilexe.txt`.
bool is_bidi_control(char32_t cp) noexcept;

/// Empty when `name` can be shown as it is: well-formed UTF-8 without control or bidirectional
/// formatting characters. Else what is wrong, to follow the name in a message: `is not valid
/// UTF-8 (byte 5)`, `contains a control character`, `contains the bidirectional formatting
/// character U+202E`. The one rule for names that reach metrics labels, pages and terminals
/// (lock names, task names).
std::string name_text_problem(std::string_view name);

/// `text` with every byte that is not part of well-formed UTF-8 written as the four characters
/// \xNN (as printable_text shows it); well-formed text, controls included, is unchanged. For
/// writers whose format must be UTF-8 (JSON, the Prometheus text format, HTML): one stray byte
/// would invalidate the whole document (Prometheus drops the entire scrape), and the byte stays
/// visible instead of vanishing. Returns `text` unchanged when it is already well-formed.
std::string well_formed_utf8(std::string_view text);

/// `text` for a message or a terminal: well-formed printable characters as they are, every other
/// byte (controls, C1 controls, bidirectional formatting characters, malformed UTF-8) as \xNN, so
/// the output never carries terminal escapes, reordered or broken text. With `max_bytes`, the output stops once it has that many bytes and
/// ends with "..." (an over-long value is named, not echoed in full).
std::string printable_text(std::string_view text, std::size_t max_bytes = std::string_view::npos);

}  // namespace shedlock
