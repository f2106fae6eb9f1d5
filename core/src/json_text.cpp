#include <shedlock/detail/json_text.hpp>
#include <shedlock/utf8.hpp>

#include <cstdio>

namespace shedlock::detail {
namespace {

/// Characters JSON allows raw but that are written as \uXXXX: controls (C1 and DEL are legal raw,
/// but a terminal acts on them), bidirectional formatting characters (they reorder what a viewer
/// shows) and U+2028/U+2029 (line ends in JavaScript source). The parsed value is the same.
bool needs_unicode_escape(char32_t cp) {
    return is_control_character(cp) || is_bidi_control(cp) || cp == 0x2028 || cp == 0x2029;
}

void append_unicode_escape(std::string& out, char32_t cp) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
}

void append_escaped(std::string& out, char32_t cp, std::string_view bytes) {
    switch (cp) {
        case '"': out += "\\\""; return;
        case '\\': out += "\\\\"; return;
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        default:
            if (needs_unicode_escape(cp)) append_unicode_escape(out, cp);
            else out += bytes;
    }
}

}  // namespace

std::string json_string(std::string_view s) {
    // Bytes that are not UTF-8 first become visible \xNN text: a JSON text must be UTF-8, and one
    // raw byte from an exception message or a query string made whole responses unparsable.
    const std::string text = well_formed_utf8(s);
    std::string out = "\"";
    out.reserve(text.size() + 2);
    for (std::size_t pos = 0; pos < text.size();) {
        const auto c = static_cast<unsigned char>(text[pos]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {  // the common case, byte by byte
            out += text[pos++];
            continue;
        }
        const auto decoded = decode_utf8_at(text, pos);  // well-formed: never empty here
        const std::size_t length = decoded ? decoded->length : 1;
        append_escaped(out, decoded ? decoded->code_point : c, std::string_view(text).substr(pos, length));
        pos += length;
    }
    out += '"';
    return out;
}

}  // namespace shedlock::detail
