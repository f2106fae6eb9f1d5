#pragma once
// What the CLI checks of a plug-in module (the provider modules of provider_modules.hpp and the
// config module of config_module.hpp) before any of its code runs: where modules are, that the
// file is a whole shared object, and that its note (module_abi.hpp) names this very build and
// ABI. The file is opened once, and dlopen maps that open file, so what was checked is what runs.

#include "module_elf.hpp"

#include <string>

namespace shedlock::cli {

/// This build's identity (cli/module_build.cmake: version, compiler, flags, core's public
/// headers). A module carries the same string in its note, or the program refuses it: the version
/// alone let a module of another build with the same version in, and a struct it shares with the
/// program had another layout there.
const char* module_build();

/// Why the shared core this process runs on is not this build's ("" when it is): it names the
/// core's file and its identity. LD_LIBRARY_PATH comes before the program's RUNPATH, so naming
/// another installation's <libdir>/shedlock gives the program (and its modules, whose notes match
/// the program) that installation's core, whose types may have another layout.
std::string foreign_core();

/// What to do about a module that could not be opened or mapped, `why` being the message (the
/// file's open or dlopen's, which carries only strerror's text): when the process or the system ran
/// out of descriptors (EMFILE, ENFILE), raise the limit of open files, which reinstalling would
/// not change; else `otherwise`.
std::string load_advice(const std::string& why, const std::string& otherwise);

/// The directory of modules that the install layout puts `from_bin` away from the program's
/// directory (/proc/self/exe: the binary, not argv[0], which may be a symlink or relative). When
/// that cannot be read (no /proc in a minimal container or chroot), `installed`: the configured
/// install directory, never one relative to the current directory, where anyone may have put a
/// module of theirs.
std::string module_dir(const char* from_bin, const char* installed);

/// A module file, opened once (read-only, close-on-exec, non-blocking: a FIFO in its place would
/// block an ordinary open for good; never on descriptor 0, 1 or 2) and kept open until dlopen has
/// mapped it.
class module_file {
public:
    explicit module_file(std::string path);
    ~module_file();
    module_file(const module_file&) = delete;
    module_file& operator=(const module_file&) = delete;

    /// Why this is not a whole shared object ("" when it is): it cannot be opened (the reason),
    /// or incomplete_elf's reasons. Every message starts with the file's name (printable).
    std::string incomplete() const;
    /// The module's note (after incomplete() said ""); empty when it has none.
    std::optional<module_identity> identity() const;
    /// dlopen(RTLD_NOW | RTLD_LOCAL) of the file opened here: through /proc/self/fd/N when /proc
    /// shows this descriptor, so that a file swapped in after the checks is not the one mapped;
    /// without /proc, by its path (the checks and the mapping may then see two files). nullptr as
    /// dlopen, dlerror() saying why. Once mapped, the descriptor stays open for the life of the
    /// process: glibc knows the module by the name /proc/self/fd/N, and a later module opened
    /// under the same number would be taken for this one.
    void* load();
    /// Undoes load() for a module refused after it was mapped (no entry point, another build, other
    /// schemes), so that each retry of a refused module (the registry loads it again on each lookup)
    /// does not keep another descriptor and mapping: dlclose, then the kept descriptor is closed
    /// once glibc no longer knows the module by its /proc/self/fd/N name (it may keep a module
    /// loaded, e.g. one with unique symbols, and would take a later module of that number for it).
    /// Call it after every object the module made (a registry's backends) is destroyed.
    void unload();

private:
    std::string path_;
    int fd_;
    int open_errno_;
    void* handle_ = nullptr;
    int mapped_fd_ = -1;  // the descriptor glibc knows the module by, once load() mapped it
};

}  // namespace shedlock::cli
