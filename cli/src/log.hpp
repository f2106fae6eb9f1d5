#pragma once
// One-line log messages to stderr with a level (`--log-level`). Messages never contain
// credentials: every URI is printed through provider_uri::redacted().

#include <string>

namespace shedlock::cli {

enum class log_level { debug, info, warn, error, off };

/// Parses debug|info|warn|error|off; throws configuration_error naming the value.
log_level parse_log_level(const std::string& text);
void set_log_level(log_level level);
log_level current_log_level();
void log(log_level level, const std::string& message);

}  // namespace shedlock::cli
