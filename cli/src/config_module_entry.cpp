// The config module's entry point (config_module.hpp): everything that reads a config file or runs
// the scheduler, behind one table of functions.
#include "config_module.hpp"
#include "module_build.hpp"

#include <shedlock/config.hpp>

namespace shedlock::cli {
namespace {

int daemon_with_log_level(const daemon_options& options, log_level level) {
    set_log_level(level);  // the module's own copy of the logger
    return daemon_command(options);
}

std::string provider_of(const std::string& path) { return load_config(path).provider; }

}  // namespace
}  // namespace shedlock::cli

extern "C" __attribute__((visibility("default"))) const shedlock::cli::config_module_api* shedlock_cli_config_module() {
    using namespace shedlock::cli;
    static const config_module_api api{.daemon = &daemon_with_log_level,
                                       .with_config = &with_config,
                                       .config_provider = &provider_of};
    return &api;
}

/// The build this module comes from (module_build.hpp): the program checks it before it calls
/// the entry point.
extern "C" __attribute__((visibility("default"))) const char shedlock_cli_config_module_build[] = SHEDLOCK_MODULE_BUILD;
