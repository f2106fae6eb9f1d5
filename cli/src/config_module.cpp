#include "config_module.hpp"

#include "module_files.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <dlfcn.h>

namespace shedlock::cli {
namespace {

/// "" when the note names the config module of this ABI and build, else what the file is.
std::string foreign_identity(const std::optional<module_identity>& note) {
    if (!note) return "has no shedlock note: it is no config module of interface version " SHEDLOCK_MODULE_TEXT(SHEDLOCK_MODULE_ABI);
    if (note->kind != module_kind::config) return "is another kind of shedlock module";
    if (note->abi != SHEDLOCK_MODULE_ABI)
        return "is a module of interface version " + std::to_string(note->abi) +
               ", this program loads version " SHEDLOCK_MODULE_TEXT(SHEDLOCK_MODULE_ABI);
    if (note->build == module_build()) return {};
    return "is from another build (" + printable_text(note->build, 120) + "), this program is " + module_build();
}

const config_module_api& load_config_module() {
    const std::string file = module_dir(SHEDLOCK_CLI_MODULE_DIR_FROM_BIN, SHEDLOCK_CLI_MODULE_INSTALL_DIR) + "/config.so";
    const auto fail = [](const std::string& why) {  // `why` names the file
        return configuration_error("cannot load the config module (it reads config files and runs the daemon): " + why +
                                   "; " + load_advice(why, "reinstall the shedlock package"));
    };
    // Checked before dlopen, on the file dlopen then maps (module_files.hpp): complete, and of this
    // build and ABI, so no code of a module of another build runs, not even its constructors.
    if (const std::string why = foreign_core(); !why.empty())
        throw configuration_error("cannot load the config module (it reads config files and runs the daemon): " + why);
    module_file module(file);
    if (const std::string why = module.incomplete(); !why.empty()) throw fail(why);
    if (const std::string what = foreign_identity(module.identity()); !what.empty())
        throw fail(printable_text(file, 400) + " " + what);
    // RTLD_LOCAL, never closed: the module's objects (triggers, errors) may outlive the call.
    void* handle = module.load();
    if (handle == nullptr) throw fail(printable_text(file + ": " + ::dlerror(), 400));
    using factory_fn = const config_module_api* (*)();
    const auto factory = reinterpret_cast<factory_fn>(::dlsym(handle, SHEDLOCK_MODULE_TEXT(SHEDLOCK_CONFIG_MODULE_FACTORY)));
    if (factory == nullptr) {
        module.unload();  // config_module() tries again on its next call
        throw fail(printable_text(file, 400) + " has no entry point " SHEDLOCK_MODULE_TEXT(SHEDLOCK_CONFIG_MODULE_FACTORY));
    }
    return *factory();
}

}  // namespace

const config_module_api& config_module() {
    static const config_module_api& api = load_config_module();
    return api;
}

}  // namespace shedlock::cli
