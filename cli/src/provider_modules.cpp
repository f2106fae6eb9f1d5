#include "provider_modules.hpp"

#include "module_files.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace shedlock::cli {
namespace {

using factory_fn = const provider_module_entry* (*)();

/// What a CLI user can do about a module that is not this build's.
const char* const reinstall_advice =
    "; reinstall the shedlock package (the program and its provider modules come from one build), or set "
    "SHEDLOCK_PROVIDER_DIR to the directory of this build's modules";

configuration_error cannot_load(const std::string& name, const std::string& why) {
    return configuration_error("cannot load the " + name + " provider module: " + why + "; " +
                               load_advice(why, "reinstall the shedlock package, or set SHEDLOCK_PROVIDER_DIR to the "
                                                "directory holding " + name + ".so"));
}

configuration_error not_a_module_of_this_build(const std::string& file, const std::string& what_it_is) {
    return configuration_error(printable_text(file, 400) + " is not a provider module of shedlock " SHEDLOCK_VERSION
                               " (it is " + what_it_is + ")" + reinstall_advice);
}

/// "" when the note names a provider module of this ABI and build, else what the module is.
std::string foreign_identity(const std::optional<module_identity>& note) {
    if (!note) return "no shedlock module of interface version " SHEDLOCK_MODULE_TEXT(SHEDLOCK_MODULE_ABI) ": it has no shedlock note";
    if (note->kind != module_kind::provider) return "another kind of shedlock module";
    if (note->abi != SHEDLOCK_MODULE_ABI)
        return "a module of interface version " + std::to_string(note->abi) +
               ", this program loads version " SHEDLOCK_MODULE_TEXT(SHEDLOCK_MODULE_ABI);
    if (note->build == module_build()) return {};
    const std::string version = note->build.substr(0, note->build.find(' '));
    if (version != SHEDLOCK_VERSION) return "version " + printable_text(version, 40);
    return "from another build of that version: " + printable_text(note->build, 120) + "; this program is " +
           module_build();
}

/// The module's entry, from a file checked before dlopen: complete, and its note names this build
/// and ABI, so a module of another build is refused before any of its code (static constructors
/// included) runs. Then the file that was checked is the one mapped (module_file::load).
const provider_module_entry& open_module(const std::string& name, const std::string& file, module_file& module) {
    if (const std::string why = foreign_core(); !why.empty())
        throw configuration_error("cannot load the " + name + " provider module: " + why);
    if (const std::string why = module.incomplete(); !why.empty()) throw cannot_load(name, why);
    if (const std::string what = foreign_identity(module.identity()); !what.empty())
        throw not_a_module_of_this_build(file, what);
    // RTLD_LOCAL: the module's own symbols stay its own; it shares the program's core (the one
    // libshedlock-core) and reaches the program only through the registry passed in.
    void* handle = module.load();
    if (handle == nullptr) throw cannot_load(name, printable_text(file + ": " + ::dlerror(), 400));
    const auto factory = reinterpret_cast<factory_fn>(::dlsym(handle, SHEDLOCK_MODULE_TEXT(SHEDLOCK_PROVIDER_MODULE_FACTORY)));
    const provider_module_entry* entry = factory ? factory() : nullptr;
    if (entry == nullptr || entry->register_provider == nullptr) {
        module.unload();
        throw not_a_module_of_this_build(file, "no shedlock module: no " SHEDLOCK_MODULE_TEXT(SHEDLOCK_PROVIDER_MODULE_FACTORY));
    }
    if (entry->build == nullptr || std::strcmp(entry->build, module_build()) != 0) {
        module.unload();
        throw not_a_module_of_this_build(file, "from another build of that version, whose note said otherwise");
    }
    return *entry;  // the handle stays open: the provider's code lives in it
}

/// "memory:, sqlite:" or "no scheme".
std::string shown_schemes(const std::vector<std::string>& schemes) {
    std::string out;
    for (const auto& scheme : schemes) out += (out.empty() ? "the schemes " : ", ") + scheme + ":";
    return out.empty() ? "no scheme" : out;
}

void load_module(const std::string& name, const std::vector<std::string>& declared, provider_registry& registry) {
    const std::string file = provider_module_dir() + "/" + name + ".so";
    module_file module(file);
    const provider_module_entry& entry = open_module(name, file, module);
    // The schemes the build declared for the module must be the ones it registers, or URIs
    // would be refused (or loaded) by the wrong name. A scratch registry shows them first; it is
    // gone (with the module's functions it held) before a refused module is unloaded.
    std::vector<std::string> registered;
    {
        provider_registry scratch;
        entry.register_provider(scratch);
        registered = scratch.schemes();
    }
    if (registered != declared) {
        module.unload();
        throw configuration_error(printable_text(file, 400) + " registers " + shown_schemes(registered) +
                                  ", but this build declared others for it" + reinstall_advice);
    }
    entry.register_provider(registry);
}

}  // namespace

std::string provider_module_dir() {
    if (const char* dir = std::getenv("SHEDLOCK_PROVIDER_DIR"); dir != nullptr && *dir != '\0') {
        // A relative directory depends on where the command is started: a module planted there
        // would be loaded from wherever that is.
        if (*dir != '/')
            throw configuration_error("SHEDLOCK_PROVIDER_DIR \"" + printable_text(dir, 200) +
                                      "\" is a relative path; give an absolute path (starting with /) to the "
                                      "directory of this build's provider modules");
        return dir;
    }
    return module_dir(SHEDLOCK_PROVIDER_DIR_FROM_BIN, SHEDLOCK_PROVIDER_INSTALL_DIR);
}

void declare_provider_modules(provider_registry& registry) {
    // Declared again by the config module's copy of this code, into the same registry (the core
    // is shared): add_on_demand ignores a name it already has.
    for (const auto& module : built_provider_modules()) {
        const std::string name = module.name;
        const std::vector<std::string> declared = module.schemes;
        registry.add_on_demand(name, declared, [name, declared](provider_registry& r) { load_module(name, declared, r); });
    }
}

}  // namespace shedlock::cli
