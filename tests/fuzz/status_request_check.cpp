// The status server's request reading: bytes as a client sends them on one connection
// (pipelined requests included), delivered in chunks whose size the first byte picks, through
// the same Beast parser and limits the server uses (status_request.hpp). Invariants: nothing
// throws; a request is refused only with 400, 413 or 431, and silence only when the bytes ran
// out; no accepted request has a body or header above the limits, nor a read buffer above its
// maximum; the bearer check agrees with a plain reference; decoded query parts are never longer
// than the query.
#include "fuzz_check.hpp"

#include "status_request.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>

#include <algorithm>
#include <cctype>

namespace shedlock::fuzz {
namespace {

namespace http = boost::beast::http;

/// A SyncReadStream over the input: at most `chunk` bytes per read, then end of stream.
struct chunked_input {
    std::string_view rest;
    std::size_t chunk;

    template <typename Buffers>
    std::size_t read_some(const Buffers& buffers, boost::beast::error_code& ec) {
        if (rest.empty()) {
            ec = boost::asio::error::eof;
            return 0;
        }
        const auto n = boost::asio::buffer_copy(buffers, boost::asio::buffer(rest.data(), std::min(chunk, rest.size())));
        rest.remove_prefix(n);
        return n;
    }
    template <typename Buffers>
    std::size_t read_some(const Buffers& buffers) {
        boost::beast::error_code ec;
        const auto n = read_some(buffers, ec);
        if (ec) throw boost::system::system_error(ec);
        return n;
    }
};

/// The reference: scheme "bearer" in any case, at least one space, then exactly the token.
bool reference_bearer(std::string_view authorization, std::string_view token) {
    const auto space = authorization.find(' ');
    if (space != 6 || token.empty()) return false;
    std::string scheme(authorization.substr(0, space));
    for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto credentials = authorization.substr(authorization.find_first_not_of(' ', space) == std::string_view::npos
                                                      ? authorization.size()
                                                      : authorization.find_first_not_of(' ', space));
    return scheme == "bearer" && credentials == token;
}

void check_request(const http::request<http::string_body>& request) {
    expect(request.body().size() <= detail::max_request_body_bytes,
           [&] { return "a body of " + std::to_string(request.body().size()) + " bytes was accepted"; });
    const std::string target(request.target());
    const auto question = target.find('?');
    if (question != std::string::npos) {
        const auto query = std::string_view(target).substr(question + 1);
        const auto params = detail::query_of(query);
        for (const auto& [name, value] : params ? *params : std::map<std::string, std::string>{})
            expect(name.size() <= query.size() && value.size() <= query.size(),
                   [&] { return "query \"" + shown(query) + "\" decoded to a longer part"; });
    }
    const std::string authorization(request[http::field::authorization]);
    for (std::string_view token : {"s3cret", "", "a"}) {
        const bool matches = detail::bearer_token_matches(authorization, token);
        expect(matches == reference_bearer(authorization, token), [&] {
            return "Authorization \"" + shown(authorization) + "\" with token \"" + std::string(token) + "\": " +
                   (matches ? "accepted" : "refused") + ", the reference disagrees";
        });
    }
}

void check_status_request(std::string_view input) {
    if (input.empty()) return;
    chunked_input in{input.substr(1), static_cast<std::size_t>(static_cast<unsigned char>(input[0])) + 1};
    boost::beast::flat_buffer buffer{detail::max_buffered_request_bytes};
    for (int requests = 0; requests < 64; ++requests) {
        detail::request_parser parser;
        detail::limit_request_parser(parser);
        boost::beast::error_code ec;
        http::read(in, buffer, parser, ec);
        expect(buffer.size() <= detail::max_buffered_request_bytes,
               [&] { return "the read buffer holds " + std::to_string(buffer.size()) + " bytes"; });
        if (ec) {
            const auto status = detail::refusal_status(ec);
            expect(status == 0 || status == 400 || status == 413 || status == 431,
                   [&] { return "refused with " + std::to_string(status) + " for " + ec.message(); });
            expect(status != 0 || in.rest.empty(),
                   [&] { return "closed without an answer before the input ended: " + ec.message(); });
            return;
        }
        check_request(parser.get());
    }
}

[[maybe_unused]] const bool registered = register_check("status_request", check_status_request);

}  // namespace
}  // namespace shedlock::fuzz
