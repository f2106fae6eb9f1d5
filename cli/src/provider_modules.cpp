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

using register_fn = void (*)(provider_registry*);

/// What a CLI user can do about a module that is not this build's.
const char* const reinstall_advice =
    "; reinstall the shedlock package (the program and its provider modules come from one build), or set "
    "SHEDLOCK_PROVIDER_DIR to the directory of this build's modules";

/// dlopen of a file that is a whole shared object. dlopen runs the module's static constructors:
/// what can be checked without running any of its code (a regular file, complete) is checked
/// before; the build identity can only be read after (entry_of).
void* open_module_file(const std::string& name, const std::string& file) {
    const auto fail = [&](const std::string& why) {
        return configuration_error("cannot load the " + name + " provider module: " + why +
                                   "; reinstall the shedlock package, or set SHEDLOCK_PROVIDER_DIR to the directory "
                                   "holding " + name + ".so");
    };
    if (const std::string why = incomplete_object(file); !why.empty()) throw fail(file + " " + why);
    // RTLD_LOCAL: the module's copies of shedlock's code stay private to it (it links them with
    // --exclude-libs); it reaches the program only through the registry passed in.
    void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw fail(printable_text(::dlerror(), 400));
    return handle;
}

configuration_error not_a_module_of_this_build(const std::string& file, const std::string& what_it_is) {
    return configuration_error(file + " is not a provider module of shedlock " SHEDLOCK_VERSION " (it is " + what_it_is +
                               ")" + reinstall_advice);
}

/// The module's entry point, once its version and build are this program's.
register_fn entry_of(void* handle, const std::string& file) {
    const auto* version = static_cast<const char*>(::dlsym(handle, "shedlock_provider_module_version"));
    const auto* build = static_cast<const char*>(::dlsym(handle, "shedlock_provider_module_build"));
    const auto entry = reinterpret_cast<register_fn>(::dlsym(handle, "shedlock_register_provider_module"));
    if (version == nullptr || entry == nullptr) throw not_a_module_of_this_build(file, "no shedlock module");
    if (std::strcmp(version, SHEDLOCK_VERSION) != 0)
        throw not_a_module_of_this_build(file, "version " + printable_text(version, 40));
    if (build == nullptr || std::strcmp(build, module_build()) != 0)
        throw not_a_module_of_this_build(file, "from another build of that version: " +
                                                   (build ? printable_text(build, 120) : "no build identity") +
                                                   "; this program is " + module_build());
    return entry;
}

/// "memory:, sqlite:" or "no scheme".
std::string shown_schemes(const std::vector<std::string>& schemes) {
    std::string out;
    for (const auto& scheme : schemes) out += (out.empty() ? "the schemes " : ", ") + scheme + ":";
    return out.empty() ? "no scheme" : out;
}

/// dlopen + the module's entry point. A module from another build is refused before its entry
/// point runs, but after dlopen ran its static constructors: the build identity is read with
/// dlsym. Checking the symbol table before dlopen is left to the provider seam (issue 22); until
/// then the directory the modules come from is what is trusted (provider_module_dir).
void load_module(const std::string& name, const std::vector<std::string>& declared, provider_registry& registry) {
    const std::string file = provider_module_dir() + "/" + name + ".so";
    const register_fn entry = entry_of(open_module_file(name, file), file);
    // The schemes the build declared for the module must be the ones it registers, or URIs
    // would be refused (or loaded) by the wrong name. A scratch registry shows them first.
    provider_registry scratch;
    entry(&scratch);
    if (scratch.schemes() != declared)
        throw configuration_error(file + " registers " + shown_schemes(scratch.schemes()) +
                                  ", but this build declared others for it" + reinstall_advice);
    entry(&registry);  // the handle stays open: the provider's code lives in it
}

}  // namespace

std::string provider_module_dir() {
    if (const char* dir = std::getenv("SHEDLOCK_PROVIDER_DIR"); dir != nullptr && *dir != '\0') {
        // A relative directory depends on where the command is started: a module planted there
        // would run its constructors before any check refuses it.
        if (*dir != '/')
            throw configuration_error("SHEDLOCK_PROVIDER_DIR \"" + printable_text(dir, 200) +
                                      "\" is a relative path; give an absolute path (starting with /) to the "
                                      "directory of this build's provider modules");
        return dir;
    }
    return module_dir(SHEDLOCK_PROVIDER_DIR_FROM_BIN, SHEDLOCK_PROVIDER_INSTALL_DIR);
}

void declare_provider_modules(provider_registry& registry) {
    for (const auto& module : built_provider_modules()) {
        const std::string name = module.name;
        const std::vector<std::string> declared = module.schemes;
        registry.add_on_demand(name, declared, [name, declared](provider_registry& r) { load_module(name, declared, r); });
    }
}

}  // namespace shedlock::cli
