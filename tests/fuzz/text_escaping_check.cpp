// The escapers of every JSON string and Prometheus label value the project writes
// (detail::json_string, escape_label_value and a label value through a registry's exposition):
// whatever the bytes, the output is well-formed UTF-8 of the format's grammar, and reading it
// back gives the input with each byte that is not part of well-formed UTF-8 replaced by the text
// \xNN, so well-formed input round-trips exactly. Both readers below are written apart from
// core (its decoder included), from the table of well-formed byte sequences (Unicode 15, table
// 3-7), the JSON grammar (RFC 8259) and the text format's label-value escapes.
#include "fuzz_check.hpp"

#include <shedlock/detail/json_text.hpp>
#include <shedlock/metrics.hpp>

namespace shedlock::fuzz {
namespace {

/// Length of the well-formed UTF-8 sequence at text[i], 0 when none starts there.
std::size_t sequence_at(std::string_view text, std::size_t i) {
    const auto b = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    const auto in = [](unsigned v, unsigned lo, unsigned hi) { return v >= lo && v <= hi; };
    const unsigned b0 = b(0);
    if (b0 < 0x80) return 1;
    if (in(b0, 0xc2, 0xdf) && in(b(1), 0x80, 0xbf)) return 2;
    if (((b0 == 0xe0 && in(b(1), 0xa0, 0xbf)) || (in(b0, 0xe1, 0xec) && in(b(1), 0x80, 0xbf)) ||
         (b0 == 0xed && in(b(1), 0x80, 0x9f)) || (in(b0, 0xee, 0xef) && in(b(1), 0x80, 0xbf))) &&
        in(b(2), 0x80, 0xbf))
        return 3;
    if (((b0 == 0xf0 && in(b(1), 0x90, 0xbf)) || (in(b0, 0xf1, 0xf3) && in(b(1), 0x80, 0xbf)) ||
         (b0 == 0xf4 && in(b(1), 0x80, 0x8f))) &&
        in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf))
        return 4;
    return 0;
}

bool is_well_formed(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto n = sequence_at(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

/// What a reader must get back: `input` with each stray byte as the four characters \xNN.
std::string expected_value(std::string_view input) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < input.size();) {
        if (const auto n = sequence_at(input, i)) {
            out.append(input.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(input[i++]);
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
    return out;
}

void append_code_point(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

/// Four hex digits at literal[i..i+4), or throws.
unsigned hex4(std::string_view literal, std::size_t i) {
    expect(i + 4 <= literal.size(), [&] { return "a \\u escape is cut short: " + shown(literal); });
    unsigned v = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const char c = literal[k];
        const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        expect(digit, [&] { return "a \\u escape has a non-hex digit: " + shown(literal); });
        v = v << 4 | static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/// The value of one JSON string literal (RFC 8259 section 7), or a violation.
std::string read_json_string(std::string_view literal) {
    expect(literal.size() >= 2 && literal.front() == '"' && literal.back() == '"',
           [&] { return "not one quoted string: " + shown(literal); });
    std::string out;
    for (std::size_t i = 1; i + 1 < literal.size();) {
        const auto c = static_cast<unsigned char>(literal[i]);
        expect(c >= 0x20 && c != '"', [&] { return "a raw control or quote inside the string: " + shown(literal); });
        if (c != '\\') {
            out += literal[i++];
            continue;
        }
        expect(i + 2 < literal.size(), [&] { return "an escape at the end of the string: " + shown(literal); });
        const char e = literal[i + 1];
        i += 2;
        static const std::string_view simple = "\"\\/bfnrt", meaning = "\"\\/\b\f\n\r\t";
        if (const auto k = simple.find(e); k != std::string_view::npos) {
            out += meaning[k];
            continue;
        }
        expect(e == 'u', [&] { return "an unknown escape: " + shown(literal); });
        unsigned cp = hex4(literal, i);
        i += 4;
        expect(cp < 0xdc00 || cp > 0xdfff, [&] { return "a lone low surrogate: " + shown(literal); });
        if (cp >= 0xd800 && cp <= 0xdbff) {
            expect(literal.substr(i, 2) == "\\u", [&] { return "a lone high surrogate: " + shown(literal); });
            const unsigned low = hex4(literal, i + 2);
            expect(low >= 0xdc00 && low <= 0xdfff, [&] { return "a high surrogate without a low one: " + shown(literal); });
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            i += 6;
        }
        append_code_point(out, cp);
    }
    return out;
}

/// The value of an escaped label value (the text between the quotes), or a violation: only \\,
/// \" and \n are escapes, and a raw quote or newline would end the value or the line.
std::string read_label_value(std::string_view escaped) {
    std::string out;
    for (std::size_t i = 0; i < escaped.size(); ++i) {
        const char c = escaped[i];
        expect(c != '"' && c != '\n', [&] { return "a raw quote or newline in a label value: " + shown(escaped); });
        if (c != '\\') {
            out += c;
            continue;
        }
        expect(i + 1 < escaped.size(), [&] { return "a label value ends in a backslash: " + shown(escaped); });
        const char e = escaped[++i];
        expect(e == '\\' || e == '"' || e == 'n', [&] { return "an unknown label-value escape: " + shown(escaped); });
        out += e == 'n' ? '\n' : e;
    }
    return out;
}

void check_round_trip(std::string_view what, std::string_view input, std::string_view output, const std::string& value) {
    expect(is_well_formed(output), [&] { return std::string(what) + " is not well-formed UTF-8: " + shown(output); });
    const std::string wanted = expected_value(input);
    expect(value == wanted, [&] {
        return std::string(what) + " reads back as \"" + shown(value) + "\", not \"" + shown(wanted) + "\"";
    });
}

void check_text_escaping(std::string_view input) {
    const std::string json = detail::json_string(input);
    check_round_trip("json_string", input, json, read_json_string(json));

    const std::string label = escape_label_value(input);
    check_round_trip("escape_label_value", input, label, read_label_value(label));

    // The same value through a registry: one well-formed line `c_total{v="..."} 1`.
    metrics_registry registry;
    registry.counter("c_total", "help", {{"v", std::string(input)}}).inc();
    const std::string text = registry.metrics_text();
    const std::string_view start = "c_total{v=\"", end = "\"} 1\n";
    const auto at = text.find(start);
    expect(at != std::string::npos && text.size() >= at + start.size() + end.size() &&
               text.compare(text.size() - end.size(), end.size(), end) == 0,
           [&] { return "the exposition has no line for the series: " + shown(text); });
    const auto escaped = std::string_view(text).substr(at + start.size(), text.size() - end.size() - at - start.size());
    check_round_trip("the exposition's label value", input, text, read_label_value(escaped));
}

[[maybe_unused]] const bool registered = register_check("text_escaping", check_text_escaping);

}  // namespace
}  // namespace shedlock::fuzz
