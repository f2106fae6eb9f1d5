#include <shedlock/detail/file_kind.hpp>

#include <sys/stat.h>

namespace shedlock::detail {

const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "of another kind";
}

}  // namespace shedlock::detail
