#pragma once
// How the status server reads a request: the limits that keep an unauthenticated client from
// holding memory, what to answer when a request breaks them, and the pieces of a request the
// routes look at (query, bearer token). Pure functions, fuzzed by tests/fuzz/status_request_check.cpp.

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace shedlock::detail {

/// The request line and headers together; more is answered 431.
inline constexpr std::size_t max_request_header_bytes = 8 * 1024;
/// A GET needs no body; a Content-Length above this is answered 413 before any of it is read.
inline constexpr std::size_t max_request_body_bytes = 1024;
/// What one connection's read buffer may hold (a request and the start of a pipelined next one).
inline constexpr std::size_t max_buffered_request_bytes = max_request_header_bytes + max_request_body_bytes;

using request_parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

/// Applies the limits above to a fresh parser.
void limit_request_parser(request_parser& parser);

/// The status to answer a request that could not be read (413, 431, 400), or 0 when the
/// connection just ended (closed, timed out, reset): then nothing is answered.
unsigned refusal_status(const boost::beast::error_code& ec);

/// Whether `authorization` (an Authorization header value) carries `token` in the `Bearer`
/// scheme: the scheme's name in any case (RFC 7235), one or more spaces, then the token,
/// compared in constant time. False when `token` is empty.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

/// The parameters of a query string (`a=1&b=%20x`), percent- and `+`-decoded; a later repeat of a
/// name wins; pairs without `=` are ignored. nullopt when a `%` is not followed by two hex
/// digits (`%zz`, `%-1`, `%4` at the end): the caller answers 400.
std::optional<std::map<std::string, std::string>> query_of(std::string_view query);

}  // namespace shedlock::detail
