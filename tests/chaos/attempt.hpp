#pragma once
// One `shedlock run` of a worker: what was planned, what the fault injector did to it, how it
// ended. The analysis joins these with the journal by attempt id.

#include <cstdint>
#include <string>

namespace shedlock::chaos {

/// A skewed client clock (libfaketime). offset_ms == 0: none. With `jump` the clock is right at
/// start and jumps by offset_ms when the command begins (while the lock is held).
struct clock_fault {
    int offset_ms = 0;
    bool jump = false;
    bool active() const { return offset_ms != 0; }
};

struct attempt_plan {
    std::int64_t id = 0;
    int worker = 0;
    std::size_t lane = 0;
    bool keep_alive = false;
    int at_least_ms = 0;
    int hold_ms = 0;  ///< how long the command holds its critical section
    clock_fault clock;
    /// release_delay: the command asks the injector to hold the network before it exits, so the
    /// release `shedlock run` sends next arrives late, while the lease is still live.
    bool delayed_release = false;
};

/// What the injector did to a running attempt.
struct attempt_faults {
    bool killed_cli = false;      ///< SIGKILL to `shedlock run`
    std::int64_t kill_us = 0;     ///< when
    bool killed_command = false;  ///< SIGKILL to the command it runs
    bool stopped = false;         ///< SIGSTOP to both, SIGCONT later
    std::int64_t stop_us = 0;
    std::int64_t cont_us = 0;
};

struct attempt_record {
    attempt_plan plan;
    attempt_faults faults;
    std::int64_t spawn_us = 0;
    std::int64_t exit_us = 0;
    int status = -1;             ///< exit code, or 128 + signal when `shedlock run` itself was killed
    bool cli_signalled = false;  ///< `shedlock run` itself died of a signal
    bool hung = false;           ///< still running at its deadline: the driver killed it
    bool unlock_failed = false;  ///< it printed that releasing the lock failed
    bool lock_lost = false;      ///< it printed that the lock was lost while the command ran
    std::string message;         ///< its first output line when the status is unexpected
};

}  // namespace shedlock::chaos
