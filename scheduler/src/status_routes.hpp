#pragma once
// What the status server answers, as a pure function of the request (no sockets): routing,
// bearer-token check, health.

#include <shedlock/status_server.hpp>

#include <string>

namespace shedlock::detail {

struct http_answer {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    bool challenge = false;  ///< add `WWW-Authenticate: Bearer`
};

struct status_routes {
    scheduler& tasks;
    metrics_registry* metrics;
    status_server_options options;

    /// Answers one request; `authorization` is the Authorization header (may be empty). Calls the
    /// backend for /healthz, /, /api/*: run it off the timer thread.
    http_answer answer(const std::string& method, const std::string& target, const std::string& authorization) const;
};

}  // namespace shedlock::detail
