#include "config_module.hpp"

#include "module_files.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <dlfcn.h>

#include <cstring>

namespace shedlock::cli {
namespace {

const config_module_api& load_config_module() {
    const std::string file = module_dir(SHEDLOCK_CLI_MODULE_DIR_FROM_BIN, SHEDLOCK_CLI_MODULE_INSTALL_DIR) + "/config.so";
    const auto fail = [](const std::string& why) {  // `why` names the file
        return configuration_error("cannot load the config module (it reads config files and runs the daemon): " + why +
                                   "; reinstall the shedlock package");
    };
    if (const std::string why = incomplete_object(file); !why.empty()) throw fail(file + " " + why);
    // RTLD_LOCAL, never closed: the module's objects (triggers, errors) may outlive the call.
    void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw fail(printable_text(::dlerror(), 400));
    using entry_fn = const config_module_api* (*)();
    const auto entry = reinterpret_cast<entry_fn>(::dlsym(handle, "shedlock_cli_config_module"));
    const auto* build = static_cast<const char*>(::dlsym(handle, "shedlock_cli_config_module_build"));
    if (entry == nullptr) throw fail(file + " has no entry point shedlock_cli_config_module");
    // Checked before the entry point runs: the table's layout is only known for this build.
    if (build == nullptr || std::strcmp(build, module_build()) != 0)
        throw fail(file + " is from another build (" + (build ? printable_text(build, 120) : "no build identity") +
                   "), this program is " + module_build());
    return *entry();
}

}  // namespace

const config_module_api& config_module() {
    static const config_module_api& api = load_config_module();
    return api;
}

}  // namespace shedlock::cli
