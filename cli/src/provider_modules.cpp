#include "provider_modules.hpp"

#include <shedlock/error.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace shedlock::cli {
namespace {

using register_fn = void (*)(provider_registry*);

/// dlopen + the module's entry point; a module from another build is refused before it runs.
void load_module(const std::string& name, const std::vector<std::string>& declared, provider_registry& registry) {
    const std::string file = provider_module_dir() + "/" + name + ".so";
    // RTLD_LOCAL: the module's copies of shedlock's code stay private to it (it links them with
    // --exclude-libs); it reaches the program only through the registry passed in.
    void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
        throw configuration_error("cannot load the " + name + " provider module: " + ::dlerror() +
                                  "; reinstall the shedlock package, or set SHEDLOCK_PROVIDER_DIR to the directory "
                                  "holding " + name + ".so");
    const auto* version = static_cast<const char*>(::dlsym(handle, "shedlock_provider_module_version"));
    auto entry = reinterpret_cast<register_fn>(::dlsym(handle, "shedlock_register_provider_module"));
    if (version == nullptr || entry == nullptr || std::strcmp(version, SHEDLOCK_VERSION) != 0)
        throw configuration_error(file + " is not a provider module of shedlock " SHEDLOCK_VERSION " (it is " +
                                  (version ? std::string("version ") + version : std::string("no shedlock module")) +
                                  "); reinstall the shedlock package");
    // The schemes the build declared for the module must be the ones it registers, or URIs
    // would be refused (or loaded) by the wrong name. A scratch registry shows them first.
    provider_registry scratch;
    entry(&scratch);
    if (scratch.schemes() != declared)
        throw configuration_error(file + " registers the schemes " + scratch.supported_schemes() +
                                  ", but this build declared others for it; reinstall the shedlock package");
    entry(&registry);  // the handle stays open: the provider's code lives in it
}

}  // namespace

std::string executable_dir() {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return ".";
    const std::string exe(path, static_cast<std::size_t>(n));
    return exe.substr(0, exe.rfind('/'));
}

std::string provider_module_dir() {
    if (const char* dir = std::getenv("SHEDLOCK_PROVIDER_DIR"); dir != nullptr && *dir != '\0') return dir;
    return executable_dir() + "/" SHEDLOCK_PROVIDER_DIR_FROM_BIN;
}

void declare_provider_modules(provider_registry& registry) {
    for (const auto& module : built_provider_modules()) {
        const std::string name = module.name;
        const std::vector<std::string> declared = module.schemes;
        registry.add_on_demand(name, declared, [name, declared](provider_registry& r) { load_module(name, declared, r); });
    }
}

}  // namespace shedlock::cli
