#pragma once
// The reference model of the lock table (ARCHITECTURE §2, docs/lock-semantics.md): what every
// provider must do, written as plainly as possible so it can be trusted without tests of its own.
// It knows nothing about backends; the runner feeds it the same operations and the time spans in
// which they happened, and compares.

#include "time_span.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace shedlock::model {

/// One stored record: `{locked_by, locked_at, lock_until, fencing_token}` of a name.
struct model_record {
    int owner = -1;  ///< acquisition id whose token is in locked_by
    time_span locked_at;
    time_span lock_until;
    std::int64_t last_token = 0;  ///< the last token the backend handed out for this name
    /// lock_until is the backend's own "now" of the call that wrote it (an unlock whose minimum
    /// hold was surely over). Every later call reads a later "now" from the same clock, so it
    /// sees the lock free even where the spans of the two calls overlap.
    bool settled = false;
};

/// What one lock_handle object should look like.
struct model_handle {
    int acquisition = -1;          ///< -1: the slot never held a handle
    std::string name;
    bool active = false;
    time_span locked_at;
    time_span lock_until;
    time_span minimum_hold_until;  ///< unlock keeps the lock until here (lock_at_least_for)
    std::int64_t token = 0;
};

class lock_model {
public:
    /// Whether try_lock at `now` acquires: no record, or `lock_until <= now`.
    truth can_acquire(const std::string& name, time_span now) const;
    /// The acquisition branch: a fresh owner, `lock_until = now + at_most`.
    model_handle acquire(const std::string& name, time_span now, std::chrono::milliseconds at_most,
                         std::chrono::milliseconds minimum_hold);

    /// Owner-checked and live-only: `lock_until = max(now, minimum_hold_until)` for the live record `h`
    /// owns; an expired or force-released record stays as it is. Uses up `h`.
    /// `conversion_slack` widens the upper end where a backend turns minimum_hold_until into a relative
    /// TTL and back on another clock (0 against the injected clock).
    void unlock(model_handle& h, time_span now, std::chrono::milliseconds conversion_slack);

    /// Whether extend at `now` succeeds: still owner and `lock_until > now`.
    truth can_extend(const model_handle& h, time_span now) const;
    /// The success branch: `lock_until = now + at_most`; the minimum hold never shrinks. Uses up `h`.
    model_handle extend(model_handle& h, time_span now, std::chrono::milliseconds at_most,
                        std::chrono::milliseconds minimum_hold);
    /// The failure branch: nothing changes on the backend; `h` is used up all the same.
    static void fail_extend(model_handle& h) { h.active = false; }

    /// Whether `name` is held at `now` (what force_release returns).
    truth is_live(const std::string& name, time_span now) const;
    /// Releases whoever holds `name`: `lock_until = now`; locked_by stays.
    void force_release(const std::string& name, time_span now);

    const model_record* record(const std::string& name) const;
    /// The fencing counter the backend reported; the model only checks that it moves up.
    void note_token(const std::string& name, std::int64_t token) { records_.at(name).last_token = token; }
    std::int64_t last_token(const std::string& name) const;

private:
    std::map<std::string, model_record> records_;
    int next_acquisition_ = 0;
};

}  // namespace shedlock::model
