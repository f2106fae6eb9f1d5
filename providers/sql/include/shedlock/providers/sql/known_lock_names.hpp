#pragma once
/// \file
/// Which lock records an SQL provider has recently seen to exist, so that a refused acquisition
/// of such a lock is one plain UPDATE (sql_dialect::acquire_existing) instead of the full
/// insert-or-take-over statement.

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace shedlock::providers::sql {

/// Lock names whose record this process saw in the table, each with when it last saw it.
///
/// A plain UPDATE that matches no row cannot tell "held elsewhere" from "no record": a record
/// deleted by another process (an operator's DELETE, another instance's delete_records) would
/// look held forever. So a sighting is trusted for `ttl` only: after that the next attempt runs
/// the full statement, which inserts a missing record. A record deleted at time D is acquirable
/// again by the first attempt at or after D + ttl. A sighting is an answer that proves the
/// record exists: the full statement's (acquired or refused: it inserts when there is none) and
/// a plain UPDATE that took the lock; a plain UPDATE's 0 rows is no sighting.
///
/// Bounded: at `capacity` names (lock names rendered per firing, `settle:{date}`, grow without
/// end) every sighting is dropped, and each name is checked in full once more.
///
/// Thread safety: safe for concurrent use.
class known_lock_names {
public:
    using time_point = std::chrono::steady_clock::time_point;
    static constexpr std::size_t default_capacity = 10000;

    /// ttl <= 0: no sighting is ever trusted (every attempt runs the full statement).
    explicit known_lock_names(std::chrono::milliseconds ttl, std::size_t capacity = default_capacity)
        : ttl_(ttl), capacity_(capacity) {}

    /// A cache for the lock table `table` (sql_lock_provider::record_table()), registered so that
    /// forget_everywhere reaches it while it lives.
    static std::shared_ptr<known_lock_names> make_registered(const std::string& table, std::chrono::milliseconds ttl);
    /// Drops the sightings of `names` in every registered cache of this process on a table of
    /// that name (a provider that deleted their records tells the others at once). Forgetting too
    /// much costs one full statement, never a wrong answer, so tables of two databases that share
    /// a name need not be told apart.
    static void forget_everywhere(const std::string& table, const std::vector<std::string>& names);

    /// Whether `name`'s record was seen within ttl before `now` (a clock that went back: no).
    bool trusted(const std::string& name, time_point now) const;
    /// What an acquire statement's answer at `asked` (taken before it was sent) says: the full
    /// statement's answer, and a granted plain UPDATE, are sightings.
    void record_answer(const std::string& name, bool plain_update, bool granted, time_point asked);
    /// Drops the sightings of `names` (this provider deleted their records).
    void forget(const std::vector<std::string>& names);

private:
    std::chrono::milliseconds ttl_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, time_point> seen_;
};

}  // namespace shedlock::providers::sql
