#pragma once
// Drives one provider and the reference model with the same random operations and compares
// them after every step: acquired or not, the handle's lease, the listed records, the fencing
// tokens, the owner checks and the single use of handles.

#include "lock_model.hpp"
#include "op_clock.hpp"
#include "op_generator.hpp"
#include "op_log.hpp"

#include <shedlock/lock_handle.hpp>

#include <suite_support.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shedlock::model {

/// The provider did something the model does not allow.
class model_mismatch : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class model_run {
public:
    static constexpr int slot_count = 6;  ///< handle objects: live, stale and used-up owners
    static constexpr int name_count = 3;  ///< few names, so owners collide often

    model_run(conformance::fixture& f, std::uint64_t seed, std::size_t log_lines = 20);
    model_run(const model_run&) = delete;
    model_run& operator=(const model_run&) = delete;
    /// Drops the remaining handles and deletes this run's records (the tables are shared).
    ~model_run();

    /// Runs `steps` random steps (and a final listing check). Throws model_mismatch with the
    /// seed, the step and the last operations.
    void execute(long steps);

    /// How the run went, for the log line. `decisions` counts the answers compared with the
    /// model (acquired, extended, released); `undecided` those the model could not decide.
    struct counts {
        long acquired = 0, refused = 0, unlocked = 0, extended = 0, not_extended = 0, reused = 0,
             forced = 0, listings = 0, decisions = 0, undecided = 0;
    };
    const counts& stats() const { return counts_; }

private:
    struct slot {
        std::optional<lock_handle> real;
        model_handle expected;
    };

    void step(const planned_op& op);
    /// Turns any exception but a mismatch into a mismatch that carries the seed and the log.
    template <class F>
    void guarded(F&& f);
    slot& slot_at(int index);

    void try_lock(int index, const std::string& name, std::chrono::milliseconds at_most,
                  std::chrono::milliseconds minimum_hold);
    void unlock(int index);
    void extend(int index, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold);
    void force_release(const std::string& name);
    /// Destroys the slot's handle; its destructor unlocks a handle that is still active.
    void retire(slot& s);
    /// An unlock or extend on a used-up handle must be a lock_state_error and change nothing.
    void expect_reuse_refused(slot& s, bool extend);

    void check_new_handle(const lock_handle& h, const model_handle& expected);
    void check_token(const std::optional<std::int64_t>& token, const std::string& name);
    void check_extended_handle(const lock_handle& h, const lock_handle& before, const model_handle& expected);
    void check_listing();
    void check_record(const lock_record& r, time_span window);

    /// Decides a branch: the model's answer, or where the model cannot know (a lease end inside
    /// the call's time span), what the provider answered.
    bool resolve(truth expected, bool observed, const std::string& what);
    void expect(bool ok, const std::string& what);
    std::string fail_message(const std::string& what) const;
    std::string label(const std::string& name) const;          ///< "n0" for the log
    std::string owner_label(const std::string& token) const;   ///< "a17" for the log

    conformance::fixture& fixture_;
    std::uint64_t seed_;
    op_clock clock_;
    op_generator generator_;
    lock_model model_;
    op_log log_;
    std::vector<std::string> names_;
    std::vector<slot> slots_;
    std::map<int, std::string> owners_;     ///< acquisition id -> owner token the provider wrote
    std::map<std::string, int> owner_ids_;  ///< and back
    long step_ = 0;
    counts counts_;
};

}  // namespace shedlock::model
