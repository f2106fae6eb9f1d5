#include "status_request.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

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

std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') out += ' ';
        else if (s[i] == '%' && i + 2 < s.size()) {
            int v = 0;
            const auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
            if (r.ec == std::errc{} && r.ptr == s.data() + i + 3) {
                out += static_cast<char>(v);
                i += 2;
            } else {
                out += s[i];
            }
        } else out += s[i];
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

std::map<std::string, std::string> query_of(std::string_view query) {
    std::map<std::string, std::string> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const auto pair = query.substr(0, amp);
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos) out[percent_decode(pair.substr(0, eq))] = percent_decode(pair.substr(eq + 1));
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    }
    return out;
}

}  // namespace shedlock::detail
