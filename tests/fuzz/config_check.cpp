// parse_config on arbitrary TOML with ${VAR} / ${VAR:default} placeholders: only
// configuration_error may escape (toml++'s parse_error included), and an accepted file holds
// only values its readers promise: bounded counts, non-negative durations, one schedule per task.
#include "fuzz_check.hpp"

#include <shedlock/config.hpp>
#include <shedlock/config_tasks.hpp>
#include <shedlock/error.hpp>

#include <cstdlib>

namespace shedlock::fuzz {
namespace {

using std::chrono::milliseconds;

/// Variables the seeds and the dictionary refer to: set, set empty, set to a placeholder (which
/// must not be expanded again); SHEDLOCK_FUZZ_UNSET stays unset.
void set_config_environment() {
    ::setenv("SHEDLOCK_FUZZ_PROVIDER", "sqlite:/tmp/fuzz-locks.db", 1);
    ::setenv("SHEDLOCK_FUZZ_DURATION", "PT5M", 1);
    ::setenv("SHEDLOCK_FUZZ_EMPTY", "", 1);
    ::setenv("SHEDLOCK_FUZZ_NESTED", "${SHEDLOCK_FUZZ_DURATION}", 1);
    ::unsetenv("SHEDLOCK_FUZZ_UNSET");
}

void expect_non_negative(const std::optional<milliseconds>& d, const std::string& what) {
    if (d) expect(d->count() >= 0, [&] { return what + " is negative: " + std::to_string(d->count()) + " ms"; });
}

void check_task(const task_config& t, const shedlock_config& c) {
    const std::string what = "[tasks." + shown(t.name) + "] ";
    expect_non_negative(t.fixed_rate, what + "fixed_rate");
    expect_non_negative(t.fixed_delay, what + "fixed_delay");
    expect_non_negative(t.initial_delay, what + "initial_delay");
    expect_non_negative(t.misfire_grace, what + "misfire_grace");
    expect_non_negative(t.lock_at_most_for, what + "lock_at_most_for");
    expect_non_negative(t.lock_at_least_for, what + "lock_at_least_for");
    expect_non_negative(t.timeout, what + "timeout");
    const int schedules = (t.cron ? 1 : 0) + (t.fixed_rate ? 1 : 0) + (t.fixed_delay ? 1 : 0);
    expect(schedules <= 1, [&] { return what + "has two schedules"; });
    expect(!t.zone || t.cron, [&] { return what + "has a zone without cron"; });
    try {
        (void)task_from_config(t, c);
    } catch (const configuration_error&) {
    }
}

void check_config(std::string_view input) {
    shedlock_config c;
    try {
        c = parse_config(std::string(input), "fuzz.toml");
    } catch (const configuration_error&) {
        return;
    }
    expect(c.workers >= 1 && c.workers <= 256, [&] { return "workers = " + std::to_string(c.workers); });
    expect(c.run_retention >= 1 && c.run_retention <= 10'000'000,
           [&] { return "run_retention = " + std::to_string(c.run_retention); });
    expect_non_negative(c.default_lock_at_most_for, "default_lock_at_most_for");
    expect_non_negative(c.default_lock_at_least_for, "default_lock_at_least_for");
    for (const auto& [name, t] : c.tasks) check_task(t, c);
}

[[maybe_unused]] const bool registered = register_check("config", check_config, set_config_environment);

}  // namespace
}  // namespace shedlock::fuzz
