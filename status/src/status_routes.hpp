#pragma once
// What the status server answers, as a pure function of the request (no sockets): routing,
// bearer-token check, health.

#include "heartbeat_watch.hpp"
#include "status_source.hpp"

#include <shedlock/status_server.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::detail {

struct http_answer {
    http_answer() = default;
    http_answer(unsigned s, std::string type, std::string text, bool challenge_ = false)
        : status(s), content_type(std::move(type)), body(std::move(text)), challenge(challenge_) {}
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    bool challenge = false;  ///< add `WWW-Authenticate: Bearer`
    std::string allow;       ///< the `Allow` header of a 405
};

/// Large response bodies handed back after they were sent, so the next scrape reuses the memory.
class body_buffers {
public:
    std::string take();
    void give(std::string body);

private:
    std::mutex mutex_;
    std::vector<std::string> spare_;
};

/// The last /healthz verdict of the backend. While another backend call is under way, /healthz
/// answers a remembered failure at once: a flood of probes during an outage neither queues a
/// call each nor holds a connection each for the deadline.
class health_memory {
public:
    void remember(std::optional<std::string> error);  ///< nullopt: the backend answered
    std::optional<std::string> last_error() const;

private:
    mutable std::mutex mutex_;
    std::optional<std::string> error_;
};

struct status_routes {
    std::shared_ptr<status_source> source;  ///< never null
    metrics_registry* metrics;
    status_server_options options;
    std::shared_ptr<body_buffers> buffers = std::make_shared<body_buffers>();
    std::shared_ptr<heartbeat_watch> heartbeats = std::make_shared<heartbeat_watch>();
    std::shared_ptr<health_memory> health = std::make_shared<health_memory>();

    /// Answers one request; `authorization` is the Authorization header (may be empty). Calls the
    /// backend for /healthz, /, /api/*: run it off the timer thread.
    http_answer answer(const std::string& method, const std::string& target, const std::string& authorization) const;
    /// Whether answer() calls the backend for this request (then it runs under
    /// options.backend_timeout, on a thread of its own); the others never wait on it.
    bool needs_backend(const std::string& method, const std::string& target, const std::string& authorization) const;
    /// For a /healthz request when the last probe failed: that 503 again, without calling the
    /// backend (for use while another backend call is under way); nullopt otherwise.
    std::optional<http_answer> remembered_health(const std::string& method, const std::string& target,
                                                 const std::string& authorization) const;
    /// The 503 for `target` when the backend did not answer within options.backend_timeout.
    http_answer backend_timeout_answer(const std::string& target) const;
};

}  // namespace shedlock::detail
