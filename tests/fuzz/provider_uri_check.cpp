// Provider URIs: parse_provider_uri, uri_options and every provider's options from_uri. Only
// configuration_error may escape. And the password never shows: input of three lines
// `<scheme>://<user>` / `<password bytes>` / `<host, port, path, query>` becomes the URI
// `<line 1>:<password>@<line 3>`, and no message (nor redacted() of what parsed) may contain a
// piece of that password. The password has an alphabet of its own (see password_letters).
#include "fuzz_check.hpp"
#include "provider_uri_readers.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>

#include <algorithm>
#include <cctype>
#include <vector>

namespace shedlock::fuzz {
namespace {

/// Letters that no fixed message text contains as a pair, so a run of them found in a message
/// came from the password; and the characters that split URIs, so passwords that need
/// percent-encoding (and get none) are tried too.
constexpr std::string_view password_letters = "QXZJK";
constexpr std::string_view password_alphabet = "QXZJK/@:?#%&=[]12.";

struct secret {
    std::string password;
    std::vector<std::string> pieces;  ///< runs of password letters not written elsewhere in the URI
};

/// Password text from fuzz bytes; a leading '!' asks for the percent-encoded form in the URI.
std::string password_from(std::string_view bytes) {
    std::string out;
    for (unsigned char c : bytes) out += password_alphabet[c % password_alphabet.size()];
    return out;
}

std::string percent_encoded(std::string_view text) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
    return out;
}

/// Every well-formed %XX of `text` decoded (the rest as it is): what the parser makes of it.
std::string percent_decoded(std::string_view text) {
    const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) && hex(text[i + 2])) {
            out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::vector<std::string> pieces_of(const std::string& password, std::string_view elsewhere) {
    std::vector<std::string> pieces;
    std::size_t start = 0;
    while (start < password.size()) {
        const auto begin = password.find_first_of(password_letters, start);
        if (begin == std::string::npos) break;
        const auto end = std::min(password.find_first_not_of(password_letters, begin), password.size());
        const std::string run = password.substr(begin, end - begin);
        if (run.size() >= 2 && elsewhere.find(run) == std::string_view::npos) pieces.push_back(run);
        start = end;
    }
    return pieces;
}

/// Line 1 must be exactly a scheme and a user, so that what follows it is meant as the password.
bool is_scheme_and_user(std::string_view line) {
    const auto colon = line.find(':');
    return colon != std::string_view::npos && colon > 0 && line.substr(colon, 3) == "://" &&
           line.find_first_of("@/?#", colon + 3) == std::string_view::npos;
}

/// `seen` is what `source` showed of URI `uri`; it must hold no piece of the password.
void expect_hidden(std::string_view seen, const secret& s, const std::string& uri, std::string_view source) {
    for (const auto& piece : s.pieces)
        expect(seen.find(piece) == std::string_view::npos, [&] {
            return "URI \"" + shown(uri) + "\": " + std::string(source) + " shows \"" + piece + "\" of the password \"" +
                   shown(s.password) + "\": " + shown(seen);
        });
}

void check_uri(const std::string& text, const secret& s) {
    provider_uri uri;
    try {
        uri = parse_provider_uri(text);
    } catch (const configuration_error& e) {
        expect_hidden(e.what(), s, text, "the parse error");
        return;
    }
    expect_hidden(uri.redacted(), s, text, "redacted()");
    const auto& readers = provider_uri_readers();
    const auto takes = [&](const provider_uri_reader& r) {
        return std::find(r.schemes.begin(), r.schemes.end(), uri.scheme) != r.schemes.end();
    };
    const bool anyone_takes = std::any_of(readers.begin(), readers.end(), takes);
    for (const auto& reader : readers) {
        if (anyone_takes && !reader.schemes.empty() && !takes(reader)) continue;  // a sure, cheap rejection
        for (const auto& seen : reader.read(uri)) expect_hidden(seen, s, text, reader.name);
    }
}

void check_provider_uri(std::string_view input) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; lines.size() < 3;) {
        const auto end = lines.size() < 2 ? input.find('\n', start) : std::string_view::npos;
        lines.push_back(input.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    if (lines.size() < 3 || !is_scheme_and_user(lines[0])) return check_uri(std::string(input), secret{});
    const bool encode = !lines[1].empty() && lines[1].front() == '!';
    secret s;
    s.password = password_from(encode ? lines[1].substr(1) : lines[1]);
    // Pieces the rest of the URI spells too (raw or percent-encoded) may show legitimately.
    const std::string elsewhere = std::string(lines[0]) + "\n" + std::string(lines[2]);
    s.pieces = pieces_of(s.password, elsewhere + "\n" + percent_decoded(elsewhere));
    const std::string in_uri = encode ? percent_encoded(s.password) : s.password;
    check_uri(std::string(lines[0]) + ":" + in_uri + "@" + std::string(lines[2]), s);
}

[[maybe_unused]] const bool registered = register_check("provider_uri", check_provider_uri);

}  // namespace
}  // namespace shedlock::fuzz
