#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/testing/lock_wait.hpp>

#include <algorithm>
#include <random>

namespace shedlock {

using std::chrono::milliseconds;

namespace {

void validate_wait(const lock_configuration& config, milliseconds timeout, const lock_wait_options& o) {
    validate_lock_wait("the wait for lock \"" + config.name() + "\" (" + format_duration(timeout) + ")", timeout);
    if (o.first_pause.count() <= 0 || o.max_pause < o.first_pause || o.senior_pause.count() <= 0 ||
        o.senior_after.count() < 0)
        throw configuration_error("lock_wait_options for \"" + config.name() +
                                  "\": first_pause, max_pause and senior_pause must be positive and "
                                  "max_pause >= first_pause");
}

/// Uniform in [pause/2, pause]: spreads waiters that started together, and keeps every pause at
/// most `pause` so the fairness bound holds.
milliseconds jittered(milliseconds pause) {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    std::uniform_int_distribution<milliseconds::rep> spread(pause.count() / 2, pause.count());
    return std::max(milliseconds{spread(engine)}, milliseconds{1});
}

/// A pause before seniority never runs past it: a waiter that became senior during a 100 ms
/// pause would otherwise miss the release that the fairness bound counts on.
milliseconds until_senior(const lock_wait_options& options, milliseconds waited) {
    if (waited >= options.senior_after) return milliseconds::max();
    return std::max(options.senior_after - waited, milliseconds{1});
}

}  // namespace

void validate_lock_wait(const std::string& what, milliseconds wait) {
    if (wait.count() < 0)
        throw configuration_error(what + " is negative; give zero (one attempt) or how long to wait, e.g. 30s");
    if (wait > max_lock_wait)
        throw configuration_error(what + " is longer than 10 years (P3650D); give a shorter wait, e.g. 1h");
}

milliseconds wait_pause(const lock_wait_options& options, int refused, milliseconds waited) {
    if (waited >= options.senior_after) return std::min(options.senior_pause, options.max_pause);
    milliseconds pause = options.first_pause;
    for (int i = 1; i < refused && pause < options.max_pause; ++i) pause *= 2;
    return std::min(pause, options.max_pause);
}

std::optional<lock_handle> try_lock_for(lock_provider& provider, const lock_configuration& config,
                                        milliseconds timeout, const lock_wait_options& options) {
    validate_wait(config, timeout, options);
    const auto& clock = provider.clock();
    const monotonic_time started = clock.monotonic_now();
    const monotonic_time deadline = started + timeout;
    for (int refused = 1;; ++refused) {
        if (auto handle = provider.try_lock(config)) return handle;
        const monotonic_time now = clock.monotonic_now();
        if (now >= deadline) return std::nullopt;
        if (options.stop_requested && options.stop_requested()) return std::nullopt;
        const auto waited = std::chrono::floor<milliseconds>(now - started);
        const auto left = std::chrono::ceil<milliseconds>(deadline - now);
        clock.sleep_for(std::min({jittered(wait_pause(options, refused, waited)), left, until_senior(options, waited)}));
    }
}

}  // namespace shedlock
