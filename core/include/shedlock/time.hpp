#pragma once
/// \file
/// Time types and the injectable clock.

#include <atomic>
#include <chrono>
#include <string>

namespace shedlock {

/// Stored lock times: UTC wall clock, millisecond precision (what TIMESTAMP(3) holds).
using timestamp = std::chrono::sys_time<std::chrono::milliseconds>;

/// Elapsed-time measurements (how much of a lock's minimum hold is left): a clock that never
/// jumps with the wall clock (an NTP step, a resumed VM).
using monotonic_time = std::chrono::steady_clock::time_point;

/// The source of "now" for lock times. Implementations are safe for concurrent use.
class clock {
public:
    virtual ~clock() = default;
    /// Current UTC time, truncated to milliseconds.
    virtual timestamp now() const = 0;
    /// Current monotonic time: durations measured on it survive wall-clock steps.
    virtual monotonic_time monotonic_now() const = 0;
    /// Lets `d` pass on this clock (try_lock_for's pause between polls). Default: the calling
    /// thread sleeps for `d` of real time.
    virtual void sleep_for(std::chrono::milliseconds d) const;
};

/// The host's `std::chrono::system_clock`.
class system_clock final : public clock {
public:
    timestamp now() const override;
    monotonic_time monotonic_now() const override { return std::chrono::steady_clock::now(); }
    /// A process-wide instance (providers default to it).
    static const system_clock& instance();
};

/// A clock that only moves when told to; for tests that must not sleep.
class manual_clock final : public clock {
public:
    explicit manual_clock(timestamp start = timestamp{std::chrono::milliseconds{1'700'000'000'000}})
        : now_(start.time_since_epoch().count()) {}
    timestamp now() const override { return timestamp{std::chrono::milliseconds{now_.load()}}; }
    /// Moves with now(): a test that advances this clock advances elapsed time too.
    monotonic_time monotonic_now() const override { return monotonic_time{std::chrono::milliseconds{now_.load()}}; }
    void set(timestamp t) { now_.store(t.time_since_epoch().count()); }
    void advance(std::chrono::milliseconds d) { now_.fetch_add(d.count()); }
    /// Advances the clock instead of sleeping: a waiter's pause is simulated time.
    void sleep_for(std::chrono::milliseconds d) const override { now_.fetch_add(d.count()); }

private:
    mutable std::atomic<std::int64_t> now_;  // mutable: sleep_for() passes time on a const clock
};

/// "2024-06-01 02:00:00.123" (UTC) — the text form every SQL dialect stores and compares.
std::string format_timestamp(timestamp t);

/// "2024-06-01T02:00:00.123Z": ISO-8601 in UTC with its zone, for messages a person reads (the
/// CLI's listings and warnings show times so).
std::string format_iso_timestamp(timestamp t);

/// Inverse of format_timestamp; also accepts 'T' as separator and a missing fraction.
/// Throws storage_error(invalid_data) when the text is not such a timestamp.
timestamp parse_timestamp(const std::string& text);

}  // namespace shedlock
