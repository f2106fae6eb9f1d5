// Mutual exclusion: no acquisition while another holder's lease was surely live and not
// released, and none before a released lock's lock_at_least_for was over.
#include "analysis_model.hpp"
#include "chaos_clock.hpp"

#include <algorithm>

namespace shedlock::chaos::detail {
namespace {

// Millisecond rounding of stored times and clock reads: a holder's guaranteed window is
// shortened by this much, so only clear violations count.
constexpr std::int64_t tolerance_us = 100'000;

/// A break the lane's documented limits allow: a skewed client clock where lock times come
/// from client clocks, or a restart of a Redis without persistence (its locks are lost).
bool excused(const lane_model& lane, const attempt_view& x, const attempt_view& y) {
    if (lane.where->client_clock && (x.record->plan.clock.active() || y.record->plan.clock.active())) return true;
    if (!lane.where->volatile_store) return false;
    const auto during = lane.faults_during(x.spawn, y.begin);
    return std::any_of(during.begin(), during.end(), [](const fault_event* f) { return f->kind == "restart"; });
}

}  // namespace

/// X was granted before Y: X had begun when Y was started, or Y's token is higher (each grant
/// increments the counter; a broken counter shows up in the token checks).
bool granted_before(const attempt_view& x, const attempt_view& y) {
    return x.begin <= y.spawn || (x.token >= 0 && y.token > x.token);
}

void check_exclusion(const lane_model& lane, const analysis_input& input, std::vector<finding>& out, int& excused_count) {
    const std::int64_t at_most = ms_to_us(input.options.at_most.count());
    std::vector<const attempt_view*> holders;
    for (const auto& a : lane.attempts)  // sorted by spawn
        if (a.began) holders.push_back(&a);
    for (const auto* y : holders) {
        // Y was granted at some time <= its begin. X, granted earlier (after its spawn), held a
        // live lease until at least spawn + at_most and did not release it before its last
        // event; with lock_at_least_for the release keeps it until spawn + at_least. So Y
        // beginning before that end means both held the lock at Y's grant. Only holders spawned
        // within a lease before Y's begin can qualify: a short window of the sorted list.
        auto first = std::lower_bound(holders.begin(), holders.end(), y->begin - at_most,
                                      [](const attempt_view* a, std::int64_t t) { return a->spawn < t; });
        for (auto it = first; it != holders.end() && (*it)->spawn < y->begin; ++it) {
            const attempt_view* x = *it;
            if (x == y || !granted_before(*x, *y)) continue;
            const std::int64_t lease_end = x->spawn + at_most - tolerance_us;
            const std::int64_t held_until = std::min(lease_end, x->last);
            const std::int64_t least_until =
                std::min(lease_end, std::max(x->last, x->spawn + ms_to_us(x->record->plan.at_least_ms) - tolerance_us));
            const char* kind = y->begin < held_until ? "exclusion" : y->begin < least_until ? "at_least" : nullptr;
            if (!kind) continue;
            if (excused(lane, *x, *y)) {
                ++excused_count;
                continue;
            }
            out.push_back({kind, describe(*y, lane.origin) + " acquired while " + describe(*x, lane.origin) +
                                     (std::string(kind) == "exclusion" ? " held the lock"
                                                                       : " had released it before its lock_at_least_for")});
        }
    }
}

}  // namespace shedlock::chaos::detail
