#pragma once
// The config file and the scheduler as a plug-in module (<libdir>/shedlock/cli/config.so), loaded
// the first time a command needs them: `run --config`, `runs --config`, `daemon`. They bring
// toml++ and date-tz, whose static initialisers build the iostreams and their locale, and the
// scheduler's code: about 0.5 MB of peak RSS that a plain `shedlock run -p URI -- cmd` does not
// pay (docs/tuning.md). Like the provider modules, it links the one shared core and carries hidden
// copies of the CLI code it shares with the program; its build is checked before dlopen (module_files.hpp).

#include "daemon_command.hpp"
#include "log.hpp"
#include "run_command.hpp"

#include <string>

namespace shedlock::cli {

/// What the module offers (one instance, returned by its factory shedlock_cli_config_module_v<ABI>,
/// module_abi.hpp).
struct config_module_api {
    /// `shedlock daemon` (daemon_command.hpp); the module logs at `level`.
    int (*daemon)(const daemon_options& options, log_level level);
    /// run_command.hpp's with_config.
    run_plan (*with_config)(run_plan plan, const run_options& options);
    /// The [shedlock] provider of the config file at `path`.
    std::string (*config_provider)(const std::string& path);
};

/// The module, loaded on first use. Throws configuration_error naming the file when it is missing,
/// truncated or from another build or ABI (its note, read before dlopen, names another).
const config_module_api& config_module();

}  // namespace shedlock::cli
