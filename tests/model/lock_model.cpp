#include "lock_model.hpp"

namespace shedlock::model {

truth lock_model::can_acquire(const std::string& name, time_span now) const {
    const auto* r = record(name);
    return !r || r->settled ? truth::yes : at_or_before(r->lock_until, now);
}

model_handle lock_model::acquire(const std::string& name, time_span now, std::chrono::milliseconds at_most,
                                 std::chrono::milliseconds minimum_hold) {
    model_record& r = records_[name];
    r.owner = next_acquisition_++;
    r.locked_at = now;
    r.lock_until = now + at_most;
    r.settled = false;
    return model_handle{r.owner, name, true, now, r.lock_until, now + minimum_hold, 0};
}

void lock_model::unlock(model_handle& h, time_span now, std::chrono::milliseconds conversion_slack) {
    h.active = false;
    auto it = records_.find(h.name);
    if (it == records_.end() || it->second.owner != h.acquisition) return;  // a stale owner touches nothing
    const truth live = is_live(h.name, now);
    if (live == truth::no) return;  // an expired or force-released lease stays free
    time_span until = later_of(now, h.minimum_hold_until);
    until.hi += conversion_slack;
    model_record& r = it->second;
    if (live == truth::unknown) {  // the lease may have ended just before: either outcome
        r.lock_until = {std::min(until.lo, r.lock_until.lo), std::max(until.hi, r.lock_until.hi)};
        r.settled = false;
        return;
    }
    r.lock_until = until;
    r.settled = h.minimum_hold_until.hi <= now.lo;
}

truth lock_model::can_extend(const model_handle& h, time_span now) const {
    const auto* r = record(h.name);
    if (!r || r->owner != h.acquisition || r->settled) return truth::no;
    return negate(at_or_before(r->lock_until, now));
}

model_handle lock_model::extend(model_handle& h, time_span now, std::chrono::milliseconds at_most,
                                std::chrono::milliseconds minimum_hold) {
    h.active = false;
    model_record& r = records_.at(h.name);
    r.lock_until = now + at_most;
    r.settled = false;
    model_handle next = h;
    next.active = true;
    next.lock_until = r.lock_until;
    // lock_handle keeps the larger minimum hold: a keep-alive extension with minimum_hold 0 must
    // not cut short the lock_at_least_for promised at acquisition.
    next.minimum_hold_until = later_of(h.minimum_hold_until, now + minimum_hold);
    return next;
}

truth lock_model::is_live(const std::string& name, time_span now) const {
    const auto* r = record(name);
    return !r || r->settled ? truth::no : negate(at_or_before(r->lock_until, now));
}

// Not settled: the provider turns the server "now" it read into a client-clock minimum hold, which
// a clock offset of a millisecond can leave just ahead of the next call.
void lock_model::force_release(const std::string& name, time_span now) {
    model_record& r = records_.at(name);
    r.lock_until = now;
    r.settled = false;
}

const model_record* lock_model::record(const std::string& name) const {
    auto it = records_.find(name);
    return it == records_.end() ? nullptr : &it->second;
}

std::int64_t lock_model::last_token(const std::string& name) const {
    const auto* r = record(name);
    return r ? r->last_token : 0;
}

}  // namespace shedlock::model
