#pragma once
// `shedlock daemon --http ADDR`: the status server of the daemon.

#include <shedlock/metrics.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/status_server.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace shedlock::cli {

/// The environment variable with the bearer token of --http (never a command-line option: `ps`
/// would show it). Removed from the environment of the commands the daemon runs.
inline constexpr const char* http_token_variable = "SHEDLOCK_HTTP_TOKEN";

/// Serves `daemon`'s status on `address` (host:port). A bad address or a port in use is logged as
/// an error and the daemon goes on scheduling without HTTP: returns null then. `heartbeat`: the
/// config's `[shedlock] heartbeat` (status_server_options::heartbeat_every; unset: its default).
std::unique_ptr<status_server> start_daemon_http(scheduler& daemon, metrics_registry& metrics,
                                                 const std::string& address, const std::string& backend,
                                                 std::optional<std::chrono::milliseconds> heartbeat);

}  // namespace shedlock::cli
