#pragma once
// The test's HTTP client: one GET /health on a fresh connection, timed.

#include <chrono>
#include <string>

namespace asio_service_check {

struct probe_result {
    bool ok = false;                     ///< 200 with {"status":"ok" in the body
    std::chrono::milliseconds took{0};   ///< connect to the end of the answer
    std::string body;                    ///< the JSON, or what went wrong
};

/// Blocking on purpose (plain sockets, no Asio): the client must not share anything with what
/// it measures. Gives up after `limit` (a reply later than that counts as not answered).
probe_result probe_health(unsigned short port, std::chrono::milliseconds limit);

}  // namespace asio_service_check
