#pragma once
// shedlock daemon: a distributed cron over the config file's tasks.

#include <cstddef>
#include <string>

namespace shedlock::cli {

struct daemon_options {
    std::string config;
    std::string provider;  ///< overrides [shedlock] provider when not empty
    bool dry_run = false;
    std::size_t count = 5;
    std::string grace = "PT30S";
    std::string http;  ///< host:port of the status server; empty: none
};

/// Runs the scheduler until SIGTERM/SIGINT/SIGHUP (or prints the fire times with dry_run); the
/// process exit status. Part of the config module: the program calls it through
/// config_module().daemon (config_module.hpp).
int daemon_command(const daemon_options& options);

}  // namespace shedlock::cli
