#pragma once
/// \file
/// UTF-8 decoding shared by lock-name validation and terminal-safe output.

#include <cstddef>
#include <optional>
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

}  // namespace shedlock
