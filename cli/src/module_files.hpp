#pragma once
// What the CLI checks of a plug-in module (the provider modules of provider_modules.hpp and the
// config module of config_module.hpp): where modules are and that the file is a whole shared
// object (before dlopen, which runs the module's static constructors), and that it comes from
// this very build (after dlopen, before its entry point runs).

#include <string>

namespace shedlock::cli {

/// This build's identity (cli/module_build.cmake: version, compiler, flags, core's public
/// headers). A module exports the same string, or the program refuses it: the version alone let
/// a module of another build with the same version in, and a struct it shares with the program
/// had another layout there.
const char* module_build();

/// The directory of modules that the install layout puts `from_bin` away from the program's
/// directory (/proc/self/exe: the binary, not argv[0], which may be a symlink or relative). When
/// that cannot be read (no /proc in a minimal container or chroot), `installed`: the configured
/// install directory, never one relative to the current directory, where anyone may have put a
/// module of theirs.
std::string module_dir(const char* from_bin, const char* installed);

/// Why `file` is not a whole shared object ("" when it is): not a regular file (a FIFO would
/// block the open for good: it is opened non-blocking and checked first), not an ELF file of
/// this word size, headers whose offsets and sizes add up past 2^64, or shorter than its own
/// headers say, as a copy cut short by a full disk or an interrupted install is. dlopen would
/// map such a file and die of SIGBUS (or SIGSEGV) touching the missing pages.
std::string incomplete_object(const std::string& file);

}  // namespace shedlock::cli
