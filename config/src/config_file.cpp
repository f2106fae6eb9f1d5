#include "config_file.hpp"

#include <shedlock/detail/file_kind.hpp>
#include <shedlock/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shedlock::detail {
namespace {

[[noreturn]] void unreadable(const std::string& path, const std::string& why) {
    throw configuration_error("config file \"" + path + "\" cannot be read: " + why);
}

/// Closes the descriptor on every path out.
struct file_descriptor {
    int fd;
    ~file_descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::string read_config_file(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below rejects it.
    const file_descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) unreadable(path, std::string(std::strerror(errno)) + "; check the path and permissions");
    struct stat info {};
    if (::fstat(file.fd, &info) != 0) unreadable(path, std::strerror(errno));
    if (!S_ISREG(info.st_mode)) unreadable(path, std::string("it is ") + detail::file_kind(info.st_mode) + "; give a TOML file");
    if (info.st_size > max_config_bytes)
        unreadable(path, "it has " + std::to_string(info.st_size) + " bytes, more than the " +
                             std::to_string(max_config_bytes) + " a config file may have");
    std::string text(static_cast<std::size_t>(info.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::read(file.fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) unreadable(path, std::strerror(errno));
        if (n == 0) break;  // shrank while we read
        done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
}

}  // namespace shedlock::detail
