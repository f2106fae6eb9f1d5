#pragma once
// Checks of status_server_options that serve_status makes around binding (private).

#include <shedlock/status_server.hpp>

#include <cstdint>

namespace shedlock::detail {

/// Throws configuration_error naming the option and its range when one is out of range; called
/// before anything is bound or written.
void validate_status_options(const status_server_options& options);

/// Reports to the scheduler's warning sink when the server listens on every address of the host
/// (0.0.0.0, ::) without a bearer token.
class status_source;
void warn_if_open_to_all(const status_source& tasks, const status_server_options& options, std::uint16_t port);

}  // namespace shedlock::detail
