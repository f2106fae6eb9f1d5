// The comparisons of a model run: handles, fencing tokens, listed records.
#include "model_run.hpp"

namespace shedlock::model {

namespace {

std::string token_text(const std::optional<std::int64_t>& t) { return t ? std::to_string(*t) : "none"; }

}  // namespace

void model_run::check_new_handle(const lock_handle& h, const model_handle& m) {
    const lease& l = h.lease();
    log_.note("-> a" + std::to_string(m.acquisition) + ", token " + token_text(l.fencing_token) + ", lock_until " +
              clock_.show(l.lock_until));
    expect(h.active(), "a new handle is active");
    expect(l.name == m.name, "the lease names another lock: " + l.name);
    expect(!l.owner.empty() && !owner_ids_.count(l.owner), "the owner token is not fresh: " + l.owner);
    expect(m.locked_at.contains(l.locked_at),
           "locked_at " + clock_.show(l.locked_at) + ", the model says " + clock_.show(m.locked_at));
    expect(m.lock_until.contains(l.lock_until), "lock_until " + clock_.show(l.lock_until) +
                                                    ", the model says now + at_most = " + clock_.show(m.lock_until));
    expect(m.minimum_hold_until.contains(l.minimum_hold_until),
           "minimum_hold_until " + clock_.show(l.minimum_hold_until) + ", the model says now + minimum_hold = " +
               clock_.show(m.minimum_hold_until));
    check_token(l.fencing_token, m.name);
}

void model_run::check_token(const std::optional<std::int64_t>& token, const std::string& name) {
    const auto& backend = conformance::current_backend();
    if (!backend.expects_fencing()) return expect(!token, "a fencing token where the backend has none");
    expect(token.has_value(), "no fencing token");
    const std::int64_t last = model_.last_token(name);
    if (backend.tokens_start_at_one())
        expect(*token == last + 1, "fencing token " + std::to_string(*token) + ", expected the previous one + 1 = " +
                                       std::to_string(last + 1));
    else  // Redis: floored by the server clock in µs, so only "higher" is promised
        expect(*token > last, "fencing token " + std::to_string(*token) + " is not above the previous " +
                                  std::to_string(last));
    model_.note_token(name, *token);
}

void model_run::check_extended_handle(const lock_handle& h, const lock_handle& before, const model_handle& m) {
    const lease& l = h.lease();
    log_.note("-> lock_until " + clock_.show(l.lock_until) + ", minimum_hold_until " +
              clock_.show(l.minimum_hold_until));
    expect(h.active(), "an extended handle is active");
    expect(l.owner == before.lease().owner, "extend changed the owner token");
    expect(l.fencing_token == before.fencing_token(), "extend changed the fencing token");
    expect(l.locked_at == before.lease().locked_at, "extend changed locked_at");
    expect(m.lock_until.contains(l.lock_until), "extended lock_until " + clock_.show(l.lock_until) +
                                                    ", the model says now + at_most = " + clock_.show(m.lock_until));
    expect(m.minimum_hold_until.contains(l.minimum_hold_until),
           "extended minimum_hold_until " + clock_.show(l.minimum_hold_until) +
               ", the model says max(previous minimum_hold_until, now + minimum_hold) = " +
               clock_.show(m.minimum_hold_until));
}

void model_run::check_listing() {
    const timestamp before = clock_.read();
    const auto records = fixture_.inspector().list_locks();
    const time_span window = clock_.window(before, clock_.read());
    log_.note("at " + clock_.show(window));
    ++counts_.listings;
    for (const auto& name : names_) {
        int seen = 0;
        for (const auto& r : records) {
            if (r.name != name) continue;
            ++seen;
            check_record(r, window);
        }
        const bool stored = model_.record(name) != nullptr;
        expect(seen == (stored ? 1 : 0), label(name) + " is listed " + std::to_string(seen) + " times, the model has " +
                                             (stored ? "one record" : "none"));
    }
}

// Against the injected clock every field is known exactly. Against a server clock only a
// record that is surely live has a known holder and lease end; a surely free one must look free.
void model_run::check_record(const lock_record& r, time_span window) {
    const model_record* m = model_.record(r.name);
    if (!m) return;  // reported by the caller
    const truth live = model_.is_live(r.name, window);
    log_.note("[" + label(r.name) + ": by " + owner_label(r.locked_by) + " until " + clock_.show(r.lock_until) +
              ", token " + token_text(r.fencing_token) + "; model: a" + std::to_string(m->owner) + " until " +
              clock_.show(m->lock_until) + ", live " + to_string(live) + "]");
    expect(r.unreadable.empty(), "unreadable record: " + r.unreadable);
    if (conformance::current_backend().expects_fencing())
        expect(r.fencing_token == m->last_token, "listed fencing token differs from the last one handed out");
    const bool exact = clock_.exact();
    if (exact || live == truth::yes) {
        expect(r.locked_by == owners_.at(m->owner), "listed locked_by is not the last acquisition's owner");
        expect(m->lock_until.contains(r.lock_until), "listed lock_until differs from the model");
    }
    if (exact) expect(m->locked_at.contains(r.locked_at), "listed locked_at differs from the model");
    if (!exact && live == truth::no) expect(r.lock_until <= window.hi, "a free lock is listed as held");
}

}  // namespace shedlock::model
