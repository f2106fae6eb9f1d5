#include "heartbeat_watch.hpp"

#include <shedlock/heartbeat_record.hpp>

#include <algorithm>

namespace shedlock::detail {
namespace {

/// Whether a record's lock_until moved by a beat. A beat moves it by about an interval; a listing
/// may move it by a few milliseconds without one (Redis before 7 computes lock_until as TIME +
/// PTTL, two reads apart), which must not count as a beat.
bool moved(timestamp before, timestamp after, std::chrono::milliseconds every) {
    const auto delta = after > before ? after - before : before - after;
    return delta > every / 2;
}

}  // namespace

std::map<std::string, process_heartbeat> heartbeat_watch::observe(const std::vector<lock_record>& records,
                                                                  timestamp now) {
    using std::chrono::duration_cast;
    using std::chrono::milliseconds;
    const auto steady_now = std::chrono::steady_clock::now();
    std::map<std::string, process_heartbeat> out;
    std::map<std::string, sighting> still_listed;
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
        const auto beat = read_heartbeat_record(r);
        if (!beat) continue;
        const auto& process = beat->process;
        const auto every = beat->every;
        auto seen = seen_.find(r.name);
        sighting s;
        if (seen == seen_.end()) {
            // First sighting: its silence so far is what its own time says (last beat = lock_until
            // minus the lease), less the allowance for clock skew; from then on only this
            // server's steady clock counts, so a writer whose clock is off is never flagged
            // while it keeps beating.
            const auto since_last_beat = duration_cast<milliseconds>(now - beat->last_beat);
            s = {r.lock_until, steady_now - std::max(milliseconds{0}, since_last_beat - skew_allowance)};
        } else if (moved(seen->second.lock_until, r.lock_until, every)) {
            s = {r.lock_until, steady_now};
        } else {
            s = seen->second;
        }
        const auto silent = duration_cast<milliseconds>(steady_now - s.since);
        const process_heartbeat h{silent > 3 * every, silent};
        // A clean stop deletes the record; a record seen twice from one process keeps the freshest.
        auto [at, added] = out.emplace(process, h);
        if (!added && !h.stopped) at->second = h;
        still_listed.emplace(r.name, s);
    }
    seen_ = std::move(still_listed);  // records no longer listed are forgotten
    return out;
}

}  // namespace shedlock::detail
