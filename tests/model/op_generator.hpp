#pragma once
// Random operations for a model run. The choice depends on the seed alone (never on what the
// backend answered), so a seed replays the same sequence of calls.

#include <array>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace shedlock::model {

enum class op_kind { try_lock, unlock, extend, force_release, drop, pass, check_listing };

struct planned_op {
    op_kind kind = op_kind::pass;
    int slot = 0;  ///< which handle object (try_lock: where a new handle goes)
    int name = 0;  ///< which lock name
    std::chrono::milliseconds at_most{0};
    std::chrono::milliseconds minimum_hold{0};
    std::chrono::milliseconds pass{0};
};

/// Durations and weights for one kind of time. Injected clock: steps of 1 s, time moves often.
/// Server clock: time cannot be moved, only waited for, so most leases are either short
/// (40..240 ms: they run out while the run goes on) or long (minutes: they never do), and
/// waits are rare.
struct op_profile {
    std::chrono::milliseconds unit;
    int long_lease_percent;             ///< share of leases measured in minutes
    std::array<int, 7> weights;         ///< per op_kind, in its order
    int max_pass_units;
    std::chrono::milliseconds pass_offset;  ///< added to every wait (off the lease boundaries)

    static op_profile injected_clock();
    static op_profile server_clock();
};

class op_generator {
public:
    op_generator(std::uint64_t seed, op_profile profile, int slots, int names);
    planned_op next();

private:
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool percent(int p) { return uniform(0, 99) < p; }
    std::chrono::milliseconds jitter();
    std::chrono::milliseconds lease();
    std::chrono::milliseconds minimum_hold(std::chrono::milliseconds at_most);

    std::mt19937_64 rng_;
    op_profile profile_;
    int slots_;
    int names_;
};

std::string to_string(op_kind kind);

}  // namespace shedlock::model
