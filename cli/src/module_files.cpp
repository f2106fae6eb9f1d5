#include "module_files.hpp"

#include "module_build.hpp"

#include <shedlock/detail/file_kind.hpp>

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
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

/// a + b, or empty when the sum passes 2^64 (a header's lie, not a size any file can have).
std::optional<std::uint64_t> checked_sum(std::uint64_t a, std::uint64_t b) {
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
    return sum;
}

/// offset + count * entry_size, or empty on overflow.
std::optional<std::uint64_t> table_end(std::uint64_t offset, std::uint64_t count, std::uint64_t entry_size) {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, entry_size, &bytes)) return std::nullopt;
    return checked_sum(offset, bytes);
}

/// The number of bytes the file must have for its headers and loaded segments to be in it;
/// empty when a header's offsets and sizes add up past 2^64 (wrapped, the sum looked small and a
/// segment of 0xFFFFFFFFFFFFFFFF bytes passed the check, then crashed dlopen).
std::optional<std::uint64_t> described_size(int fd, const ElfW(Ehdr)& header) {
    auto end = table_end(header.e_phoff, header.e_phnum, header.e_phentsize);
    if (!end) return std::nullopt;
    if (header.e_shoff != 0) {
        const auto sections_end = table_end(header.e_shoff, header.e_shnum, header.e_shentsize);
        if (!sections_end) return std::nullopt;
        end = std::max(*end, *sections_end);
    }
    for (std::uint64_t i = 0; i < header.e_phnum; ++i) {
        ElfW(Phdr) segment;
        // No overflow: e_phoff + e_phnum * e_phentsize was checked above.
        if (!read_at(fd, &segment, sizeof segment, header.e_phoff + i * header.e_phentsize)) return end;
        if (segment.p_type != PT_LOAD) continue;
        const auto segment_end = checked_sum(segment.p_offset, segment.p_filesz);
        if (!segment_end) return std::nullopt;
        end = std::max(*end, *segment_end);
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
    // O_NONBLOCK: opening a FIFO for reading waits for a writer (forever, the CLI hung); a device
    // or socket is no module either. Only a regular file is read.
    const file_descriptor f{::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0) return {};  // missing or unreadable: dlopen's message names why
    if (!S_ISREG(st.st_mode)) return std::string("is not a regular file (it is ") + shedlock::detail::file_kind(st.st_mode) + ")";
    const auto size = static_cast<std::uint64_t>(st.st_size);
    ElfW(Ehdr) header{};
    const bool whole_header = read_at(f.fd, &header, sizeof header, 0);
    if (size < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
        return size == 0 ? "is empty" : "is not a shared object (no ELF header)";
    if (!whole_header) return cut_short(sizeof header, size);
    if (header.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) || header.e_type != ET_DYN ||
        header.e_phentsize != sizeof(ElfW(Phdr)))
        return "is not a shared object for this machine";
    const auto described = described_size(f.fd, header);
    if (!described) return "is not a whole shared object: its ELF headers describe more than 2^64 bytes";
    return *described > size ? cut_short(*described, size) : std::string{};
}

}  // namespace shedlock::cli
