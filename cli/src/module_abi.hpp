#pragma once
// The interface between the shedlock CLI and its plug-in modules (the provider modules of
// provider_modules.hpp, the config module of config_module.hpp), in one place.
//
// A module links the CLI's one shared core (libshedlock-core.so.<ABI>, cli/module_targets.cmake),
// so the program and every module share one provider registry, one logger of core, one set of
// types. What the program must know before it runs any of a module's code is in an ELF note
// (section .note.shedlock, owner "shedlock"), which the program reads from the file before dlopen
// (module_files.hpp): the ABI version of this interface and the build identity. A module of another
// build or ABI is refused without its static constructors running. Then the program calls the one
// extern "C" factory whose name carries the ABI version.

#include <cstddef>
#include <cstdint>

namespace shedlock {
class provider_registry;
}

/// The version of this interface: the layout of the factories' structs, the note, the soname of the
/// shared core. Raise it when any of them changes. cli/module_targets.cmake reads it from here.
#define SHEDLOCK_MODULE_ABI 1

#define SHEDLOCK_MODULE_PASTE_(prefix, abi) prefix##abi
#define SHEDLOCK_MODULE_PASTE(prefix, abi) SHEDLOCK_MODULE_PASTE_(prefix, abi)
#define SHEDLOCK_MODULE_TEXT_(name) #name
#define SHEDLOCK_MODULE_TEXT(name) SHEDLOCK_MODULE_TEXT_(name)
/// shedlock_provider_module_v<ABI>: a provider module's factory (provider_module_entry).
#define SHEDLOCK_PROVIDER_MODULE_FACTORY SHEDLOCK_MODULE_PASTE(shedlock_provider_module_v, SHEDLOCK_MODULE_ABI)
/// shedlock_cli_config_module_v<ABI>: the config module's factory (config_module_api).
#define SHEDLOCK_CONFIG_MODULE_FACTORY SHEDLOCK_MODULE_PASTE(shedlock_cli_config_module_v, SHEDLOCK_MODULE_ABI)
/// shedlock_core_build_v<ABI>: the shared core's build identity (core_build.cpp), which the program
/// checks before loading a module: LD_LIBRARY_PATH may name another installation's core.
#define SHEDLOCK_CORE_BUILD_FUNCTION SHEDLOCK_MODULE_PASTE(shedlock_core_build_v, SHEDLOCK_MODULE_ABI)

namespace shedlock::cli {

/// What a module is, as its note's type says.
enum class module_kind : std::uint32_t { provider = 1, config = 2 };

/// The note's layout (ELF Nhdr, the owner padded to 4 bytes, then the description: the ABI version
/// and the build identity with its NUL). `Build` is the identity's size with the NUL.
template <std::size_t Build>
struct module_note {
    std::uint32_t owner_size;
    std::uint32_t description_size;
    std::uint32_t type;
    char owner[12];
    std::uint32_t abi;
    char build[Build];
};

/// What a provider module's factory returns: one static instance.
struct provider_module_entry {
    const char* build;  ///< the module's build identity (module_build.hpp), as in its note
    const char* name;   ///< "sqlite": the provider it registers
    /// Registers the provider's schemes in `registry` (the program's: the core is shared).
    void (*register_provider)(provider_registry& registry);
};

}  // namespace shedlock::cli

/// Defines the note of a module of `kind` (module_kind), ABI `abi` and build identity `build` (a
/// string literal). Only the tests' planted modules give another ABI or build than this one's.
#define SHEDLOCK_MODULE_NOTE(kind, abi, build)                                                                   \
    [[gnu::section(".note.shedlock"), gnu::used, gnu::aligned(4)]] static const ::shedlock::cli::module_note<   \
        sizeof(build)>                                                                                           \
        shedlock_module_note{9, 4 + sizeof(build), static_cast<std::uint32_t>(kind), "shedlock", abi, build}
