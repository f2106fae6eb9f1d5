#pragma once
// A minimal blocking HTTP/1.1 client for tests of the status server (one request per connection).

#include <cstdint>
#include <map>
#include <string>

namespace shedlock::test {

struct http_reply {
    int status = 0;  ///< 0: no answer (connection refused or closed)
    std::map<std::string, std::string> headers;  ///< names lower-cased
    std::string body;
};

/// `method path` to 127.0.0.1:port (or `host`), with an optional Authorization header value.
http_reply http_request(std::uint16_t port, const std::string& method, const std::string& path,
                        const std::string& authorization = {}, const std::string& host = "127.0.0.1");
inline http_reply http_get(std::uint16_t port, const std::string& path, const std::string& authorization = {}) {
    return http_request(port, "GET", path, authorization);
}

}  // namespace shedlock::test
