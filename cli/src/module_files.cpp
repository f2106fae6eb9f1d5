#include "module_files.hpp"

#include "module_build.hpp"

#include <shedlock/utf8.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace shedlock::cli {

const char* module_build() { return SHEDLOCK_MODULE_BUILD; }

std::string foreign_core() {
    using build_fn = const char* (*)();
    const char* const name = SHEDLOCK_MODULE_TEXT(SHEDLOCK_CORE_BUILD_FUNCTION);
    const auto core_build = reinterpret_cast<build_fn>(::dlsym(RTLD_DEFAULT, name));
    const char* const build = core_build != nullptr ? core_build() : nullptr;
    if (build != nullptr && std::strcmp(build, module_build()) == 0) return {};
    Dl_info info{};
    const bool located = core_build != nullptr && ::dladdr(reinterpret_cast<const void*>(core_build), &info) != 0 &&
                         info.dli_fname != nullptr;
    const std::string core = located ? printable_text(info.dli_fname, 400) : std::string("the shared core libshedlock-core");
    const std::string what = build != nullptr ? "is from another build (" + printable_text(build, 120) + ")"
                                              : std::string("is from another build (it has no ") + name + ")";
    return core + " " + what + ", this program is " + module_build() +
           "; LD_LIBRARY_PATH may name another installation's libshedlock-core: unset it, or reinstall the "
           "shedlock package";
}

std::string load_advice(const std::string& why, const std::string& otherwise) {
    for (const int error : {EMFILE, ENFILE})
        if (why.find(std::strerror(error)) != std::string::npos)
            return "raise the limit of open files (ulimit -n; LimitNOFILE= for shedlock.service; fs.file-max for "
                   "the whole system)";
    return otherwise;
}

std::string module_dir(const char* from_bin, const char* installed) {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path);
    if (n <= 0 || n == static_cast<ssize_t>(sizeof path) || path[0] != '/') return installed;
    const std::string exe(path, static_cast<std::size_t>(n));
    return exe.substr(0, exe.rfind('/')) + "/" + from_bin;
}

namespace {

/// `path` opened read-only, close-on-exec, non-blocking, on a descriptor above the standard ones:
/// started with stdin or stdout closed, open() returned 0 or 1, and the module was kept there, where
/// a dup2 of /dev/null onto the standard descriptors would close it (module_file::load).
int open_above_stdio(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fd > 2) return fd;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return moved;
}

}  // namespace

module_file::module_file(std::string path)
    : path_(std::move(path)), fd_(open_above_stdio(path_)), open_errno_(errno) {}

module_file::~module_file() {
    if (fd_ >= 0) ::close(fd_);
}

std::string module_file::incomplete() const {
    const std::string shown = printable_text(path_, 400);
    if (fd_ < 0) return shown + ": cannot open shared object file: " + std::strerror(open_errno_);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return shown + ": " + std::strerror(errno);
    const std::string why = incomplete_elf(fd_, st);
    return why.empty() ? why : shown + " " + why;
}

std::optional<module_identity> module_file::identity() const { return read_module_note(fd_); }

void* module_file::load() {
    const std::string by_descriptor = "/proc/self/fd/" + std::to_string(fd_);
    struct stat opened {}, seen {};
    // The magic link shows this very file (same device and inode), or /proc is missing or not the
    // kernel's (an empty tmpfs in a minimal container): then the path is all there is.
    const bool through_proc = ::fstat(fd_, &opened) == 0 && ::stat(by_descriptor.c_str(), &seen) == 0 &&
                              opened.st_dev == seen.st_dev && opened.st_ino == seen.st_ino;
    handle_ = ::dlopen((through_proc ? by_descriptor : path_).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr && through_proc) std::swap(mapped_fd_, fd_);  // kept open on purpose (see the header)
    return handle_;
}

void module_file::unload() {
    if (handle_ == nullptr) return;
    ::dlclose(std::exchange(handle_, nullptr));
    if (mapped_fd_ < 0) return;
    const std::string by_descriptor = "/proc/self/fd/" + std::to_string(mapped_fd_);
    if (void* still = ::dlopen(by_descriptor.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
        ::dlclose(still);  // still loaded: its name must keep naming it
        return;
    }
    ::close(std::exchange(mapped_fd_, -1));
}

}  // namespace shedlock::cli
