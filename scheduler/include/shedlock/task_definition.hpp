#pragma once
/// \file
/// A scheduled task as data: name, trigger, lock policy, body, enabled. A configuration file can
/// override any field before the scheduler starts; everything is checked at `scheduler::start()`.

#include <shedlock/task_context.hpp>
#include <shedlock/trigger.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock {

using task_body = std::function<void(task_context&)>;

/// One scheduled task. Durations are typed; the options that take text (`lock_at_most_for("PT30M")`)
/// parse it at once, and a typo is kept in `errors` and reported by start() with the task's name
/// instead of aborting static initialisation (SHEDLOCK_SCHEDULED).
struct task_definition {
    std::string name;
    trigger schedule;
    /// Lock name template; empty = the task name. `{date}` (20240601), `{datetime}`
    /// (20240601T020000) render the firing time in the trigger's zone (UTC for rates and delays),
    /// `{env}` the scheduler's environment name.
    std::string lock_name;
    /// Empty: scheduler_options::default_lock_at_most_for.
    std::optional<std::chrono::milliseconds> lock_at_most_for;
    /// Empty: no minimum hold (or the configuration file's default_lock_at_least_for).
    std::optional<std::chrono::milliseconds> lock_at_least_for;
    bool enabled = true;
    /// Extend the lock every lock_at_most_for / 2 while the body runs (watchdog).
    bool keep_alive = false;
    /// While the lock is held elsewhere, a firing keeps trying for this long (try_lock_for) before
    /// it counts as skipped_locked; zero: one attempt. The wait ends early at the task's next
    /// firing time (that firing is then skipped as still running) and when the scheduler stops.
    std::chrono::milliseconds wait_for_lock{0};
    /// A firing found later than this is skipped (and the next slot after now is scheduled);
    /// within it, it still runs once. Firings are never replayed in a burst.
    std::chrono::milliseconds misfire_grace{1000};
    /// Business key template claimed after the lock (docs/idempotency.md), rendered per firing
    /// like lock_name ("settle:{date}"); empty: no claim. Needs scheduler_options::claims.
    std::string idempotency_key;
    /// How long a claim holds before another owner may take it over; empty: lock_at_most_for.
    std::optional<std::chrono::milliseconds> claim_for;
    task_body body;
    /// Options whose text did not parse; start() reports the first, naming the task.
    std::vector<std::string> errors;
};

/// A modifier of a task_definition, for make_task() and SHEDLOCK_SCHEDULED.
struct task_option {
    std::function<void(task_definition&)> apply;
};

task_option lock_at_most_for(std::string_view duration);
task_option lock_at_most_for(std::chrono::milliseconds duration);
task_option lock_at_least_for(std::string_view duration);
task_option lock_at_least_for(std::chrono::milliseconds duration);
/// Lock name (template) other than the task name, e.g. "settle:{date}".
task_option lock_name(std::string name_template);
task_option enabled(bool on);
task_option keep_alive(bool on = true);
/// Wait up to `wait` for a lock held elsewhere (zero: do not wait).
task_option wait_for_lock(std::chrono::milliseconds wait);
task_option misfire_grace(std::chrono::milliseconds grace);
/// Claim this business key (template) after the lock; a done key skips the body (skipped_done).
task_option idempotency_key(std::string key_template);
task_option claim_for(std::chrono::milliseconds duration);

namespace detail {
inline void apply_option(task_definition& task, const trigger& t) { task.schedule = t; }
inline void apply_option(task_definition& task, const task_option& o) { o.apply(task); }
}  // namespace detail

/// Builds a definition from a trigger and options, e.g.
/// `make_task("reconcile", body, cron("0 0 2 * * ?"), lock_at_most_for("PT30M"))`.
template <typename... Options>
task_definition make_task(std::string name, task_body body, const Options&... options) {
    task_definition task;
    task.name = std::move(name);
    task.body = std::move(body);
    (detail::apply_option(task, options), ...);
    return task;
}

/// Fluent form of make_task: `task_builder("x").schedule(fixed_rate(1s)).lock_at_most_for("PT1M").body(f).build()`.
class task_builder {
public:
    explicit task_builder(std::string name) { task_.name = std::move(name); }
    task_builder& schedule(trigger t) { task_.schedule = std::move(t); return *this; }
    task_builder& with(const task_option& option) { option.apply(task_); return *this; }
    task_builder& lock_at_most_for(std::string_view d) { return with(shedlock::lock_at_most_for(d)); }
    task_builder& lock_at_least_for(std::string_view d) { return with(shedlock::lock_at_least_for(d)); }
    task_builder& lock_name(std::string t) { return with(shedlock::lock_name(std::move(t))); }
    task_builder& enabled(bool on) { task_.enabled = on; return *this; }
    task_builder& keep_alive(bool on = true) { task_.keep_alive = on; return *this; }
    task_builder& idempotency_key(std::string t) { return with(shedlock::idempotency_key(std::move(t))); }
    task_builder& body(task_body b) { task_.body = std::move(b); return *this; }
    task_definition build() const { return task_; }

private:
    task_definition task_;
};

}  // namespace shedlock
