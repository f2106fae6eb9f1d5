#include "journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace asio_service {
namespace {

long long epoch_ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

journal::journal(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
        throw std::system_error(errno, std::generic_category(),
                                "journal \"" + path + "\" cannot be opened for appending; pass --journal PATH of a "
                                "writable directory");
}

journal::~journal() {
    writer_.join();
    ::close(fd_);
}

std::string journal::line(const std::string& task, shedlock::timestamp scheduled_at,
                          std::optional<std::int64_t> fencing, std::chrono::system_clock::time_point begin) {
    return task + " " + shedlock::format_iso_timestamp(scheduled_at) + " " + std::to_string(::getpid()) + " " +
           (fencing ? std::to_string(*fencing) : "-") + " " + std::to_string(epoch_ms(begin)) + " " +
           std::to_string(epoch_ms(std::chrono::system_clock::now())) + "\n";
}

void journal::write(const std::string& text) const {
    if (::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        throw std::system_error(errno, std::generic_category(), "journal \"" + path_ + "\": append failed");
}

}  // namespace asio_service
