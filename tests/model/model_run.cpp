#include "model_run.hpp"

#include <shedlock/error.hpp>

namespace shedlock::model {

using std::chrono::milliseconds;

namespace {

std::string ms_text(milliseconds d) { return std::to_string(d.count()) + "ms"; }

}  // namespace

model_run::model_run(conformance::fixture& f, std::uint64_t seed, std::size_t log_lines)
    : fixture_(f),
      seed_(seed),
      clock_(f, conformance::current_backend().honours_injected_clock()),
      generator_(seed, clock_.exact() ? op_profile::injected_clock() : op_profile::server_clock(), slot_count,
                 name_count),
      log_(log_lines),
      slots_(slot_count) {
    for (int i = 0; i < name_count; ++i)
        names_.push_back(conformance::fixture::unique_name("model-" + std::to_string(i)));
}

model_run::~model_run() {
    for (auto& s : slots_) s.real.reset();  // their destructors unlock what is still held
    try {
        fixture_.inspector().delete_records(names_);  // the tables are shared by every run
    } catch (const std::exception&) {
        // Best effort: the names are unique to this run, a leftover record disturbs nobody.
    }
}

template <class F>
void model_run::guarded(F&& f) {
    try {
        f();
    } catch (const model_mismatch&) {
        throw;
    } catch (const std::exception& e) {
        throw model_mismatch(fail_message(std::string("unexpected exception: ") + e.what()));
    }
}

void model_run::execute(long steps) {
    for (step_ = 1; step_ <= steps; ++step_) guarded([&] { step(generator_.next()); });
    guarded([&] {
        log_.begin(step_, "list_locks (final)");
        check_listing();
    });
}

void model_run::step(const planned_op& op) {
    const std::string& name = names_[static_cast<std::size_t>(op.name)];
    switch (op.kind) {
        case op_kind::try_lock: return try_lock(op.slot, name, op.at_most, op.minimum_hold);
        case op_kind::unlock: return unlock(op.slot);
        case op_kind::extend: return extend(op.slot, op.at_most, op.minimum_hold);
        case op_kind::force_release: return force_release(name);
        case op_kind::drop:
            log_.begin(step_, "drop h" + std::to_string(op.slot));
            return retire(slot_at(op.slot));
        case op_kind::pass:
            log_.begin(step_, "pass " + ms_text(op.pass));
            return clock_.pass(op.pass);
        case op_kind::check_listing:
            log_.begin(step_, "list_locks");
            return check_listing();
    }
}

model_run::slot& model_run::slot_at(int index) {
    slot& s = slots_.at(static_cast<std::size_t>(index));
    if (s.real) expect(s.real->active() == s.expected.active, "handle active() differs from the model");
    return s;
}

void model_run::try_lock(int index, const std::string& name, milliseconds at_most, milliseconds minimum_hold) {
    log_.begin(step_, "h" + std::to_string(index) + " = try_lock(" + label(name) + ", at_most " + ms_text(at_most) +
                          ", minimum_hold " + ms_text(minimum_hold) + ")");
    const timestamp before = clock_.read();
    auto handle = fixture_.provider().try_lock({name, at_most, minimum_hold});
    const time_span now = clock_.window(before, clock_.read());
    log_.note("at " + clock_.show(now));
    if (!resolve(model_.can_acquire(name, now), handle.has_value(), "acquired")) {
        ++counts_.refused;
        return;
    }
    ++counts_.acquired;
    model_handle expected = model_.acquire(name, now, at_most, minimum_hold);
    check_new_handle(*handle, expected);
    expected.token = handle->fencing_token().value_or(0);
    owners_[expected.acquisition] = handle->lease().owner;
    owner_ids_[handle->lease().owner] = expected.acquisition;
    slot& s = slot_at(index);
    retire(s);  // an owner that starts a new acquisition drops its old handle (which unlocks if still active)
    s.real = std::move(handle);
    s.expected = expected;
}

void model_run::unlock(int index) {
    log_.begin(step_, "h" + std::to_string(index) + ".unlock()");
    slot& s = slot_at(index);
    if (!s.real) return log_.note("(no handle)");
    if (!s.expected.active) return expect_reuse_refused(s, false);
    const timestamp before = clock_.read();
    s.real->unlock();
    const time_span now = clock_.window(before, clock_.read());
    model_.unlock(s.expected, now, clock_.conversion_slack(now));
    log_.note("a" + std::to_string(s.expected.acquisition) + " at " + clock_.show(now));
    expect(!s.real->active(), "unlock uses the handle up");
    ++counts_.unlocked;
}

void model_run::extend(int index, milliseconds at_most, milliseconds minimum_hold) {
    log_.begin(step_, "h" + std::to_string(index) + ".extend(at_most " + ms_text(at_most) + ", minimum_hold " +
                          ms_text(minimum_hold) + ")");
    slot& s = slot_at(index);
    if (!s.real) return log_.note("(no handle)");
    if (!s.expected.active) return expect_reuse_refused(s, true);
    const timestamp before = clock_.read();
    auto next = s.real->extend(at_most, minimum_hold);
    const time_span now = clock_.window(before, clock_.read());
    log_.note("a" + std::to_string(s.expected.acquisition) + " at " + clock_.show(now));
    expect(!s.real->active(), "extend uses the handle up");
    if (!resolve(model_.can_extend(s.expected, now), next.has_value(), "extended")) {
        lock_model::fail_extend(s.expected);
        ++counts_.not_extended;
        return;
    }
    model_handle expected = model_.extend(s.expected, now, at_most, minimum_hold);
    check_extended_handle(*next, *s.real, expected);
    s.real = std::move(next);  // the old handle is used up: replacing it unlocks nothing
    s.expected = expected;
    ++counts_.extended;
}

void model_run::force_release(const std::string& name) {
    log_.begin(step_, "force_release(" + label(name) + ")");
    const timestamp before = clock_.read();
    const bool released = fixture_.inspector().force_release(name);
    const time_span now = clock_.window(before, clock_.read());
    log_.note("at " + clock_.show(now));
    if (!resolve(model_.is_live(name, now), released, "released")) return;
    time_span until = now;
    until.hi += clock_.conversion_slack(now);
    model_.force_release(name, until);
    ++counts_.forced;
}

void model_run::retire(slot& s) {
    if (!s.real) return;
    const bool was_active = s.expected.active;
    const timestamp before = clock_.read();
    s.real.reset();  // the destructor unlocks a handle that is still active
    const time_span now = clock_.window(before, clock_.read());
    if (was_active) {
        model_.unlock(s.expected, now, clock_.conversion_slack(now));
        log_.note("(destructor unlocks a" + std::to_string(s.expected.acquisition) + " at " + clock_.show(now) + ")");
    }
    s.expected = model_handle{};
}

void model_run::expect_reuse_refused(slot& s, bool extend) {
    bool refused = false;
    try {
        if (extend) (void)s.real->extend(milliseconds{1000});
        else s.real->unlock();
    } catch (const lock_state_error&) {
        refused = true;
    }
    log_.note(refused ? "-> lock_state_error" : "-> accepted");
    expect(refused, "a used-up handle must throw lock_state_error");
    expect(!s.real->active(), "a refused handle stays used up");
    ++counts_.reused;
}

bool model_run::resolve(truth expected, bool observed, const std::string& what) {
    log_.note(what + ": model " + to_string(expected) + ", provider " + (observed ? "yes" : "no"));
    ++counts_.decisions;
    if (expected == truth::unknown) {
        ++counts_.undecided;  // a lease end inside the call's time span: either answer is right
        return observed;
    }
    expect((expected == truth::yes) == observed, what + " differs from the model");
    return observed;
}

void model_run::expect(bool ok, const std::string& what) {
    if (!ok) throw model_mismatch(fail_message(what));
}

std::string model_run::label(const std::string& name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == name) return "n" + std::to_string(i);
    return name;
}

std::string model_run::owner_label(const std::string& token) const {
    auto it = owner_ids_.find(token);
    return it == owner_ids_.end() ? "'" + token + "'" : "a" + std::to_string(it->second);
}

std::string model_run::fail_message(const std::string& what) const {
    const std::string seed = std::to_string(seed_);
    return "model mismatch on " + conformance::current_backend().name() + " at step " + std::to_string(step_) +
           " (seed " + seed + "): " + what + "\nreplay: SHEDLOCK_MODEL_SEED=" + seed +
           " (times are relative to the start of the run)\nlast operations, oldest first:\n" + log_.render();
}

}  // namespace shedlock::model
