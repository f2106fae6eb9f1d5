#include "module_elf.hpp"

#include <shedlock/detail/file_kind.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace shedlock::cli {
namespace {

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

bool read_header(int fd, ElfW(Ehdr)& header) { return read_at(fd, &header, sizeof header, 0); }

/// Program header `i` (its table was checked by described_size).
bool read_segment(int fd, const ElfW(Ehdr)& header, std::uint64_t i, ElfW(Phdr)& segment) {
    return read_at(fd, &segment, sizeof segment, header.e_phoff + i * header.e_phentsize);
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
        if (!read_segment(fd, header, i, segment)) return end;
        // PT_NOTE too: read_module_note reads it.
        if (segment.p_type != PT_LOAD && segment.p_type != PT_NOTE) continue;
        const auto segment_end = checked_sum(segment.p_offset, segment.p_filesz);
        if (!segment_end) return std::nullopt;
        end = std::max(*end, *segment_end);
    }
    return end;
}

/// The ELF header of this program's own code (the program or module holding this function, mapped
/// at its load base), or nullptr if dladdr cannot say. A module must have its word size, byte order
/// and machine, or dlopen refuses it with a message that does not say so ("No such file or
/// directory" of a file that is there).
const ElfW(Ehdr)* own_header() {
    static const ElfW(Ehdr)* const header = [] {
        Dl_info info{};
        const bool found = ::dladdr(reinterpret_cast<const void*>(&own_header), &info) != 0;
        return found ? static_cast<const ElfW(Ehdr)*>(info.dli_fbase) : nullptr;
    }();
    return header;
}

bool for_this_machine(const ElfW(Ehdr)& header) {
    if (header.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) || header.e_type != ET_DYN ||
        header.e_phentsize != sizeof(ElfW(Phdr)))
        return false;
    const ElfW(Ehdr)* own = own_header();
    return own == nullptr || (header.e_ident[EI_DATA] == own->e_ident[EI_DATA] && header.e_machine == own->e_machine);
}

std::string cut_short(std::uint64_t described, std::uint64_t size) {
    return "is truncated: its ELF headers describe " + std::to_string(described) + " bytes, the file has " +
           std::to_string(size);
}

/// The shedlock note among the notes of one PT_NOTE segment's bytes (entries aligned to `align`).
std::optional<module_identity> shedlock_note_in(const std::vector<char>& notes, std::size_t align) {
    std::size_t at = 0;
    const auto padded = [align](std::size_t n) { return (n + align - 1) / align * align; };
    while (at <= notes.size() && notes.size() - at >= sizeof(ElfW(Nhdr))) {  // `at` may pass the end by padding
        ElfW(Nhdr) note;
        std::memcpy(&note, notes.data() + at, sizeof note);
        const std::size_t name_at = at + sizeof note;
        if (note.n_namesz > notes.size() - name_at) return std::nullopt;
        const std::size_t desc_at = name_at + padded(note.n_namesz);
        if (desc_at > notes.size() || note.n_descsz > notes.size() - desc_at) return std::nullopt;
        if (note.n_namesz == 9 && std::memcmp(notes.data() + name_at, "shedlock", 9) == 0 && note.n_descsz >= 4) {
            module_identity identity{static_cast<module_kind>(note.n_type), 0, {}};
            std::memcpy(&identity.abi, notes.data() + desc_at, 4);
            const char* build = notes.data() + desc_at + 4;
            identity.build.assign(build, ::strnlen(build, note.n_descsz - 4));
            return identity;
        }
        at = desc_at + padded(note.n_descsz);
    }
    return std::nullopt;
}

}  // namespace

std::string incomplete_elf(int fd, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return std::string("is not a regular file (it is ") + shedlock::detail::file_kind(st.st_mode) + ")";
    const auto size = static_cast<std::uint64_t>(st.st_size);
    ElfW(Ehdr) header{};
    const bool whole_header = read_header(fd, header);
    if (size < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
        return size == 0 ? "is empty" : "is not a shared object (no ELF header)";
    if (!whole_header) return cut_short(sizeof header, size);
    if (!for_this_machine(header)) return "is not a shared object for this machine";
    const auto described = described_size(fd, header);
    if (!described) return "is not a whole shared object: its ELF headers describe more than 2^64 bytes";
    return *described > size ? cut_short(*described, size) : std::string{};
}

std::optional<module_identity> read_module_note(int fd) {
    constexpr std::uint64_t max_notes = 64 * 1024;  // ours is about 100 bytes; build ids and ABI tags, less
    ElfW(Ehdr) header{};
    if (!read_header(fd, header)) return std::nullopt;
    for (std::uint64_t i = 0; i < header.e_phnum; ++i) {
        ElfW(Phdr) segment;
        if (!read_segment(fd, header, i, segment)) return std::nullopt;
        if (segment.p_type != PT_NOTE || segment.p_filesz > max_notes) continue;
        std::vector<char> notes(segment.p_filesz);
        if (!read_at(fd, notes.data(), notes.size(), segment.p_offset)) return std::nullopt;
        if (auto identity = shedlock_note_in(notes, segment.p_align == 8 ? 8 : 4)) return identity;
    }
    return std::nullopt;
}

}  // namespace shedlock::cli
