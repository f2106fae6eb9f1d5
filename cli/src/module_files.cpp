#include "module_files.hpp"

#include "module_build.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace shedlock::cli {
namespace {

/// An open file, closed on every path out.
struct file_descriptor {
    int fd;
    ~file_descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

bool read_at(int fd, void* buffer, std::size_t length, std::uint64_t offset) {
    return ::pread(fd, buffer, length, static_cast<off_t>(offset)) == static_cast<ssize_t>(length);
}

/// The number of bytes the file must have for its headers and loaded segments to be in it.
std::uint64_t described_size(int fd, const ElfW(Ehdr)& header) {
    std::uint64_t end = std::uint64_t{header.e_phoff} + std::uint64_t{header.e_phnum} * header.e_phentsize;
    if (header.e_shoff != 0)
        end = std::max(end, std::uint64_t{header.e_shoff} + std::uint64_t{header.e_shnum} * header.e_shentsize);
    for (std::uint64_t i = 0; i < header.e_phnum; ++i) {
        ElfW(Phdr) segment;
        if (!read_at(fd, &segment, sizeof segment, header.e_phoff + i * header.e_phentsize)) return end;
        if (segment.p_type == PT_LOAD) end = std::max(end, std::uint64_t{segment.p_offset} + segment.p_filesz);
    }
    return end;
}

std::string cut_short(std::uint64_t described, std::uint64_t size) {
    return "is truncated: its ELF headers describe " + std::to_string(described) + " bytes, the file has " +
           std::to_string(size);
}

}  // namespace

const char* module_build() { return SHEDLOCK_MODULE_BUILD; }

std::string module_dir(const char* from_bin, const char* installed) {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path);
    if (n <= 0 || n == static_cast<ssize_t>(sizeof path) || path[0] != '/') return installed;
    const std::string exe(path, static_cast<std::size_t>(n));
    return exe.substr(0, exe.rfind('/')) + "/" + from_bin;
}

std::string incomplete_object(const std::string& file) {
    const file_descriptor f{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0) return {};  // missing or unreadable: dlopen's message names why
    const auto size = static_cast<std::uint64_t>(st.st_size);
    ElfW(Ehdr) header{};
    const bool whole_header = read_at(f.fd, &header, sizeof header, 0);
    if (size < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
        return size == 0 ? "is empty" : "is not a shared object (no ELF header)";
    if (!whole_header) return cut_short(sizeof header, size);
    if (header.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) || header.e_type != ET_DYN ||
        header.e_phentsize != sizeof(ElfW(Phdr)))
        return "is not a shared object for this machine";
    const std::uint64_t described = described_size(f.fd, header);
    return described > size ? cut_short(described, size) : std::string{};
}

}  // namespace shedlock::cli
