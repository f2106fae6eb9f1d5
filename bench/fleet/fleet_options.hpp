#pragma once
// The flags of bench/fleet: how many instance processes, tasks, rounds, which backends. A bad value
// is a usage error naming the flag, the value and its range (exit 64).

#include <stdexcept>
#include <string>
#include <vector>

namespace shedlock::bench::fleet {

/// A flag the bench cannot use; main prints it and exits 64.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct fleet_options {
    int instances = 20;   ///< instance processes per firing (N)
    int tasks = 500;      ///< tasks (lock names) due at each firing (M)
    int rounds = 5;       ///< measured rounds; each is one provider and one raw firing per kind
    int threads = 2;      ///< worker threads and pool connections per instance (two fleets live at once)
    int hold_s = 5;       ///< lock_at_least_for: keeps a name taken for the rest of its firing
    int body_ms = 1;      ///< the task body between acquisition and release
    std::vector<std::string> backends{"postgres", "pgbouncer", "redis"};
};

/// Reads `--instances=N --tasks=M --rounds=R --threads=T --hold=S --body-ms=B
/// --backends=postgres,pgbouncer,redis`. Throws usage_error for anything else.
fleet_options parse_fleet_options(int argc, char** argv);

/// The usage text, the ranges included.
std::string fleet_usage();

/// A whole decimal number within [min, max]; usage_error naming `flag` otherwise.
int parse_bounded(const std::string& flag, const std::string& text, int min, int max);

}  // namespace shedlock::bench::fleet
