#pragma once
// What the CLI reads of a module's ELF file before dlopen (module_files.hpp): that it is a whole
// shared object, and the note that says which build and ABI it comes from (module_abi.hpp). Both
// read an open descriptor with pread, never map the file, and run none of its code.

#include "module_abi.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

namespace shedlock::cli {

/// What a module's note says.
struct module_identity {
    module_kind kind;
    std::uint32_t abi;
    std::string build;  ///< as the module wrote it (not yet made printable)
};

/// Why the file open as `fd` (with `st` its fstat) is not a whole shared object ("" when it is): not
/// a regular file, not an ELF file of this word size, byte order and machine, headers whose offsets
/// and sizes add up past 2^64, or shorter than its own headers say, as a copy cut short by a full
/// disk or an interrupted install is. dlopen would map such a file and die of SIGBUS (or SIGSEGV) touching the missing pages.
std::string incomplete_elf(int fd, const struct stat& st);

/// The first "shedlock" note of a whole shared object (incomplete_elf said ""), or empty when it has
/// none (a module of an older ABI, which had none, or no shedlock module at all).
std::optional<module_identity> read_module_note(int fd);

}  // namespace shedlock::cli
