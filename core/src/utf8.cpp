#include <shedlock/utf8.hpp>

#include <cstdio>

namespace shedlock {
namespace {

/// Appends `c` as the four characters \xNN.
void append_hex_byte(std::string& out, unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 0xf];
}

/// Length of the sequence that `lead` starts, or 0 when it cannot start one.
std::size_t sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) return 2;
    if (lead >= 0xe0 && lead <= 0xef) return 3;
    if (lead >= 0xf0 && lead <= 0xf4) return 4;
    return 0;
}

}  // namespace

std::optional<utf8_char> decode_utf8_at(std::string_view text, std::size_t pos) {
    if (pos >= text.size()) return std::nullopt;
    const auto lead = static_cast<unsigned char>(text[pos]);
    const std::size_t length = sequence_length(lead);
    if (length == 0 || pos + length > text.size()) return std::nullopt;
    char32_t cp = length == 1 ? lead : lead & (0x7f >> length);
    for (std::size_t i = 1; i < length; ++i) {
        const auto c = static_cast<unsigned char>(text[pos + i]);
        if ((c & 0xc0) != 0x80) return std::nullopt;
        cp = cp << 6 | (c & 0x3f);
    }
    static constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::nullopt;
    return utf8_char{cp, length};
}

bool is_control_character(char32_t cp) noexcept { return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f); }

bool is_bidi_control(char32_t cp) noexcept {
    return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

std::string name_text_problem(std::string_view name) {
    for (std::size_t pos = 0; pos < name.size();) {
        const auto decoded = decode_utf8_at(name, pos);
        if (!decoded) return "is not valid UTF-8 (byte " + std::to_string(pos) + ")";
        pos += decoded->length;
        if (is_control_character(decoded->code_point)) return "contains a control character";
        if (is_bidi_control(decoded->code_point)) {
            char code[16];
            std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(decoded->code_point));
            return std::string("contains the bidirectional formatting character ") + code;
        }
    }
    return {};
}

std::string well_formed_utf8(std::string_view text) {
    std::string out;
    std::size_t copied = 0;  // text[copied, pos) is well-formed and not yet in `out`
    for (std::size_t pos = 0; pos < text.size();) {
        if (static_cast<unsigned char>(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        if (const auto decoded = decode_utf8_at(text, pos)) {
            pos += decoded->length;
            continue;
        }
        out.append(text.substr(copied, pos - copied));
        append_hex_byte(out, static_cast<unsigned char>(text[pos]));
        copied = ++pos;
    }
    if (copied == 0) return std::string(text);
    out.append(text.substr(copied));
    return out;
}

std::string printable_text(std::string_view text, std::size_t max_bytes) {
    // Decoded, not byte by byte: a C1 control is two bytes that are not controls alone.
    std::string out;
    for (std::size_t pos = 0; pos < text.size() && out.size() < max_bytes;) {
        const auto decoded = decode_utf8_at(text, pos);
        if (decoded && !is_control_character(decoded->code_point) && !is_bidi_control(decoded->code_point)) {
            out.append(text.substr(pos, decoded->length));
            pos += decoded->length;
            continue;
        }
        append_hex_byte(out, static_cast<unsigned char>(text[pos++]));
    }
    return out.size() < text.size() && out.size() >= max_bytes ? out + "..." : out;
}

}  // namespace shedlock
