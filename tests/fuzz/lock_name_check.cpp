// validate_lock_name against an independent reference: a name is accepted exactly when it is
// well-formed UTF-8 of 1..64 code points without C0/C1 controls, DEL or bidirectional formatting
// characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069). Rejections are
// configuration_error, and their messages are printable UTF-8 themselves (they reach terminals).
#include "fuzz_check.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>

#include <optional>

namespace shedlock::fuzz {
namespace {

/// The number of code points, or empty when `text` is not UTF-8 (RFC 3629: no overlongs, no
/// surrogates, nothing past U+10FFFF) or holds a control character. Written apart from
/// core's decoder on purpose, from the table of well-formed byte sequences (Unicode 15, table 3-7).
std::optional<std::size_t> reference_length(std::string_view text) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size(); ++count) {
        const auto b = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
        const auto in = [](unsigned v, unsigned lo, unsigned hi) { return v >= lo && v <= hi; };
        const unsigned b0 = b(0);
        if (b0 < 0x80) {
            if ((b0 < 0x20 || b0 == 0x7f)) return std::nullopt;
            i += 1;
        } else if (in(b0, 0xc2, 0xdf) && in(b(1), 0x80, 0xbf)) {
            if (b0 == 0xc2 && b(1) <= 0x9f) return std::nullopt;  // U+0080..U+009F
            if (b0 == 0xd8 && b(1) == 0x9c) return std::nullopt;  // U+061C
            i += 2;
        } else if (((b0 == 0xe0 && in(b(1), 0xa0, 0xbf)) || (in(b0, 0xe1, 0xec) && in(b(1), 0x80, 0xbf)) ||
                    (b0 == 0xed && in(b(1), 0x80, 0x9f)) || (in(b0, 0xee, 0xef) && in(b(1), 0x80, 0xbf))) &&
                   in(b(2), 0x80, 0xbf)) {
            // U+200E, U+200F, U+202A..U+202E (E2 80 xx) and U+2066..U+2069 (E2 81 xx)
            if (b0 == 0xe2 && b(1) == 0x80 && (in(b(2), 0x8e, 0x8f) || in(b(2), 0xaa, 0xae))) return std::nullopt;
            if (b0 == 0xe2 && b(1) == 0x81 && in(b(2), 0xa6, 0xa9)) return std::nullopt;
            i += 3;
        } else if (((b0 == 0xf0 && in(b(1), 0x90, 0xbf)) || (in(b0, 0xf1, 0xf3) && in(b(1), 0x80, 0xbf)) ||
                    (b0 == 0xf4 && in(b(1), 0x80, 0x8f))) &&
                   in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf)) {
            i += 4;
        } else {
            return std::nullopt;
        }
    }
    return count;
}

void check_lock_name(std::string_view input) {
    const auto length = reference_length(input);
    const bool valid = length && *length >= 1 && *length <= max_lock_name_length;
    try {
        validate_lock_name(input);
    } catch (const configuration_error& e) {
        expect(!valid, [&] { return "a valid name was rejected: \"" + shown(input) + "\": " + e.what(); });
        expect(reference_length(e.what()).has_value(), [&] {
            return "the message is not printable UTF-8 (a terminal would show broken text or run an escape): " +
                   shown(e.what());
        });
        return;
    }
    expect(valid, [&] { return "an invalid name was accepted: \"" + shown(input) + "\""; });
}

[[maybe_unused]] const bool registered = register_check("lock_name", check_lock_name);

}  // namespace
}  // namespace shedlock::fuzz
