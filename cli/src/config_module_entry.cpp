// The config module's entry point (config_module.hpp): everything that reads a config file or runs
// the scheduler, behind one table of functions.
#include "config_module.hpp"
#include "module_abi.hpp"
#include "module_build.hpp"

#include <shedlock/config.hpp>

/// What the program reads from the file before dlopen (module_abi.hpp): the config module of this
/// ABI and build; the table's layout is only known for those.
SHEDLOCK_MODULE_NOTE(shedlock::cli::module_kind::config, SHEDLOCK_MODULE_ABI, SHEDLOCK_MODULE_BUILD);

namespace shedlock::cli {
namespace {

int daemon_with_log_level(const daemon_options& options, log_level level) {
    set_log_level(level);  // the module's own copy of the CLI's logger
    return daemon_command(options);
}

std::string provider_of(const std::string& path) { return load_config(path).provider; }

}  // namespace
}  // namespace shedlock::cli

extern "C" __attribute__((visibility("default"))) const shedlock::cli::config_module_api* SHEDLOCK_CONFIG_MODULE_FACTORY() {
    using namespace shedlock::cli;
    static const config_module_api api{.daemon = &daemon_with_log_level,
                                       .with_config = &with_config,
                                       .config_provider = &provider_of};
    return &api;
}
