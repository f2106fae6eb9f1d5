#include "status_request.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

namespace shedlock::detail {
namespace {

namespace http = boost::beast::http;

bool same_secret(std::string_view a, std::string_view b) {
    // Constant time in the content: a wrong token's prefix does not answer faster.
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % std::max<std::size_t>(b.size(), 1)]);
    return diff == 0 && !b.empty();
}

bool same_letters_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// nullopt for a `%` not followed by two hex digits (from_chars would take a sign: `%-1` read as -1).
std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%') {
            const int high = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
            const int low = high < 0 ? -1 : hex_digit(s[i + 2]);
            if (low < 0) return std::nullopt;
            out += static_cast<char>(high * 16 + low);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

}  // namespace

void limit_request_parser(request_parser& parser) {
    parser.header_limit(static_cast<std::uint32_t>(max_request_header_bytes));
    parser.body_limit(max_request_body_bytes);
}

unsigned refusal_status(const boost::beast::error_code& ec) {
    if (ec == http::error::body_limit) return 413;
    // The header outgrew the parser's limit, or the read buffer filled before the header ended.
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) return 431;
    if (ec.category() == boost::beast::error_code(http::error::end_of_stream).category() && ec != http::error::end_of_stream &&
        ec != http::error::partial_message)
        return 400;  // a malformed request, not a connection that ended
    return 0;
}

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
    constexpr std::string_view scheme = "bearer";
    if (authorization.size() <= scheme.size() || !same_letters_ignoring_case(authorization.substr(0, scheme.size()), scheme) ||
        authorization[scheme.size()] != ' ')
        return false;
    const auto credentials = authorization.substr(scheme.size());
    return same_secret(credentials.substr(std::min(credentials.find_first_not_of(' '), credentials.size())), token);
}

std::optional<std::map<std::string, std::string>> query_of(std::string_view query) {
    std::map<std::string, std::string> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const auto pair = query.substr(0, amp);
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos) {
            auto name = percent_decode(pair.substr(0, eq));
            auto value = percent_decode(pair.substr(eq + 1));
            if (!name || !value) return std::nullopt;
            out[std::move(*name)] = std::move(*value);
        }
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    }
    return out;
}

}  // namespace shedlock::detail
