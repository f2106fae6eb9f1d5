#pragma once
// shedlock runs: run records, newest first.

#include <cstddef>
#include <string>

namespace shedlock::cli {

struct runs_options {
    std::string provider;
    std::string config;
    std::string task;
    std::size_t limit = 20;
    bool json = false;
};

/// Prints the newest run records; the process exit status. Throws missing_option without a provider.
int runs_command(runs_options options);

}  // namespace shedlock::cli
