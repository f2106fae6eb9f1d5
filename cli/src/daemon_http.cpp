#include "daemon_http.hpp"
#include "log.hpp"

#include <cstdlib>

namespace shedlock::cli {

std::unique_ptr<status_server> start_daemon_http(scheduler& daemon, metrics_registry& metrics,
                                                 const std::string& address, const std::string& backend,
                                                 std::optional<std::chrono::milliseconds> heartbeat) {
    try {
        status_server_options options;
        parse_http_address(address, options);
        if (const char* token = std::getenv(http_token_variable); token != nullptr) options.bearer_token = token;
        options.backend = backend;
        if (heartbeat) options.heartbeat_every = *heartbeat;
        auto server = serve_status(daemon, &metrics, options);
        log(log_level::info, "--http: serving /metrics, /healthz, /api/* and the status page on " + address +
                                 (options.bearer_token.empty() ? "" : " (bearer token required)"));
        return server;
    } catch (const std::exception& e) {
        log(log_level::error, std::string("--http: ") + e.what() + "; the daemon goes on without HTTP");
        return nullptr;
    }
}

}  // namespace shedlock::cli
