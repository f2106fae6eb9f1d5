#include "config_module.hpp"

#include "provider_modules.hpp"

#include <shedlock/error.hpp>

#include <dlfcn.h>

#include <cstring>

namespace shedlock::cli {
namespace {

const config_module_api& load_config_module() {
    const std::string file = executable_dir() + "/" SHEDLOCK_CLI_MODULE_DIR_FROM_BIN "/config.so";
    const auto fail = [](const std::string& why) {  // `why` names the file
        return configuration_error("cannot load the config module (it reads config files and runs the daemon): " + why +
                                   "; reinstall the shedlock package");
    };
    // RTLD_LOCAL, never closed: the module's objects (triggers, errors) may outlive the call.
    void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw fail(::dlerror());
    using entry_fn = const config_module_api* (*)();
    const auto entry = reinterpret_cast<entry_fn>(::dlsym(handle, "shedlock_cli_config_module"));
    if (entry == nullptr) throw fail(file + " has no entry point shedlock_cli_config_module");
    const config_module_api* api = entry();
    if (std::strcmp(api->version, SHEDLOCK_VERSION) != 0)
        throw fail(file + " is from shedlock " + api->version + ", this program is " SHEDLOCK_VERSION);
    return *api;
}

}  // namespace

const config_module_api& config_module() {
    static const config_module_api& api = load_config_module();
    return api;
}

}  // namespace shedlock::cli
