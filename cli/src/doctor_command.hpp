#pragma once
// shedlock doctor: is this backend usable from this host, and is this host's clock close enough?

#include <string>

namespace shedlock::cli {

struct doctor_options {
    std::string provider;
    std::string max_offset = "1s";
    bool json = false;
};

/// Runs the checks and prints them; 0 when none failed, else the status of the first kind of failure.
int doctor_command(const doctor_options& options);

}  // namespace shedlock::cli
