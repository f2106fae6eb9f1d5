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
    const auto during = lane.faults_during(x.begin, y.begin);
    return std::any_of(during.begin(), during.end(), [](const fault_event* f) { return f->kind == "restart"; });
}

}  // namespace

void check_exclusion(const lane_model& lane, const analysis_input& input, std::vector<finding>& out, int& excused_count) {
    const std::int64_t at_most = ms_to_us(input.options.at_most.count());
    std::vector<const attempt_view*> holders;
    for (const auto& a : lane.attempts)
        if (a.began) holders.push_back(&a);
    std::sort(holders.begin(), holders.end(), [](auto* p, auto* q) { return p->begin < q->begin; });
    for (const auto* y : holders) {
        // Y acquired somewhere in [spawn, begin]. X held the lock surely from its begin until
        // the earlier of its lease end (granted after X's spawn) and its release (after its
        // last event), or, with lock_at_least_for, until X's spawn + at_least.
        // Only holders that began within a lease before Y: sorted by begin, a short window.
        auto first = std::lower_bound(holders.begin(), holders.end(), y->begin - at_most,
                                      [](const attempt_view* a, std::int64_t t) { return a->begin < t; });
        for (auto it = first; it != holders.end() && (*it)->begin <= y->spawn; ++it) {
            const attempt_view* x = *it;
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
