#pragma once
// Reading a config file without surprises: only regular files, bounded in size.

#include <string>

namespace shedlock::detail {

/// The largest config file read: far beyond any real one, small enough to reject /dev/zero-like input.
inline constexpr long max_config_bytes = 1L << 20;

/// The file's text. Throws configuration_error naming the path and the reason when it cannot be
/// opened, is not a regular file (a directory, a FIFO, a device: never blocks or reads forever)
/// or is larger than max_config_bytes.
std::string read_config_file(const std::string& path);

}  // namespace shedlock::detail
