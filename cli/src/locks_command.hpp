#pragma once
// shedlock locks: inspect lock records; shedlock locks release: operator release.

#include <string>

namespace shedlock::cli {

struct locks_options {
    std::string provider;
    bool json = false;
    std::string stuck_after = "PT6H";
    std::string release_name;  ///< `locks release NAME`
    bool force = false;
    bool yes = false;
};

/// Prints the lock records as a table or JSON; the process exit status.
int locks_command(const locks_options& options);
/// Releases `release_name` whoever holds it (needs --force, and --yes or a terminal's y).
int locks_release_command(const locks_options& options);

}  // namespace shedlock::cli
