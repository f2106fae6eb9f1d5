#pragma once
// What a file that should be a regular one is instead, for the errors of the readers that
// refuse such files before reading them (the CLI's config file and plug-in modules).

#include <sys/types.h>

namespace shedlock::detail {

/// "a FIFO", "a directory", "a socket", "a character device", "a block device", or "of another
/// kind", for the st_mode of a file that is not a regular file.
const char* file_kind(mode_t mode);

}  // namespace shedlock::detail
