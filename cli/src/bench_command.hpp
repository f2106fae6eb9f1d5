#pragma once
// shedlock bench: compare lock providers on this machine's network and hardware.

#include <string>
#include <vector>

namespace shedlock::cli {

struct bench_options {
    std::vector<std::string> providers;
    std::string duration = "2s";
    int contenders = 4;
    bool json = false;
    std::string svg;  ///< also write the chart here when not empty
};

/// Benchmarks each provider in turn and prints the figures; the process exit status.
int bench_command(const bench_options& options);

}  // namespace shedlock::cli
