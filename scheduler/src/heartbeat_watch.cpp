#include "heartbeat_watch.hpp"
#include "instance_heartbeat.hpp"

#include <shedlock/owner_token.hpp>

namespace shedlock::detail {

std::map<std::string, process_heartbeat> heartbeat_watch::observe(const std::vector<lock_record>& records,
                                                                  timestamp now) {
    using std::chrono::duration_cast;
    using std::chrono::milliseconds;
    const auto steady_now = std::chrono::steady_clock::now();
    std::map<std::string, process_heartbeat> out;
    std::map<std::string, sighting> still_listed;
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
        const auto every = heartbeat_interval(r.name);
        if (!every || !r.unreadable.empty()) continue;
        const auto process = process_of_owner(r.locked_by);
        if (process.empty()) continue;
        auto seen = seen_.find(r.name);
        const bool first_sighting = seen == seen_.end();
        sighting s = first_sighting || seen->second.lock_until != r.lock_until ? sighting{r.lock_until, steady_now}
                                                                                : seen->second;
        const auto unchanged_for = duration_cast<milliseconds>(steady_now - s.since);
        const auto since_last_beat = duration_cast<milliseconds>(now - (r.lock_until - heartbeat_lease));
        process_heartbeat h;
        if (unchanged_for > 3 * *every) h = {true, unchanged_for};
        else if (since_last_beat > 3 * *every + skew_allowance) h = {true, since_last_beat};
        // A clean stop deletes the record; a record seen twice from one process keeps the freshest.
        auto [at, added] = out.emplace(process, h);
        if (!added && !h.stopped) at->second = h;
        still_listed.emplace(r.name, s);
    }
    seen_ = std::move(still_listed);  // records no longer listed are forgotten
    return out;
}

}  // namespace shedlock::detail
