#include "op_generator.hpp"

#include <algorithm>
#include <numeric>

namespace shedlock::model {

using std::chrono::milliseconds;

op_profile op_profile::injected_clock() {
    //            try_lock unlock extend force drop pass listing
    return {milliseconds{1000}, 0, {26, 14, 16, 4, 4, 32, 4}, 4, milliseconds{0}};
}

op_profile op_profile::server_clock() {
    // Waits are 1 step in 155 (20..140 ms): 10,000 steps wait ~5 s in all; the calls themselves
    // let the short leases run out in between. A fifth of the leases are long, so some locks
    // stay held (and are refused, extended, force-released) for the whole run.
    //            try_lock unlock extend force drop pass listing
    return {milliseconds{40}, 20, {60, 34, 40, 8, 10, 1, 2}, 3, milliseconds{20}};
}

op_generator::op_generator(std::uint64_t seed, op_profile profile, int slots, int names)
    : rng_(seed), profile_(profile), slots_(slots), names_(names) {}

// Mostly whole units, so that lease ends and "now" meet exactly (the lock_until <= now edge);
// sometimes a few ms off.
milliseconds op_generator::jitter() {
    return percent(20) ? milliseconds{uniform(1, static_cast<int>(profile_.unit.count()) - 1)} : milliseconds{0};
}

milliseconds op_generator::lease() {
    if (percent(profile_.long_lease_percent)) return std::chrono::minutes{percent(50) ? 5 : 10};
    return profile_.unit * uniform(1, 6) + jitter();
}

milliseconds op_generator::minimum_hold(milliseconds at_most) {
    if (percent(40)) return milliseconds{0};
    if (percent(25)) return at_most;
    const auto units = static_cast<int>(at_most / profile_.unit);
    return std::min(at_most, profile_.unit * uniform(0, units) + jitter());
}

planned_op op_generator::next() {
    const int total = std::accumulate(profile_.weights.begin(), profile_.weights.end(), 0);
    int pick = uniform(0, total - 1);
    std::size_t kind = 0;
    while (pick >= profile_.weights[kind]) pick -= profile_.weights[kind++];
    planned_op op;
    op.kind = static_cast<op_kind>(kind);
    op.slot = uniform(0, slots_ - 1);
    op.name = uniform(0, names_ - 1);
    op.at_most = lease();
    op.minimum_hold = minimum_hold(op.at_most);
    op.pass = profile_.unit * uniform(0, profile_.max_pass_units) + profile_.pass_offset +
              (profile_.pass_offset.count() == 0 ? jitter() : milliseconds{0});
    return op;
}

std::string to_string(op_kind kind) {
    switch (kind) {
        case op_kind::try_lock: return "try_lock";
        case op_kind::unlock: return "unlock";
        case op_kind::extend: return "extend";
        case op_kind::force_release: return "force_release";
        case op_kind::drop: return "drop";
        case op_kind::pass: return "pass";
        case op_kind::check_listing: return "list_locks";
    }
    return "?";
}

}  // namespace shedlock::model
