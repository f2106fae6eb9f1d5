#pragma once
// The attempts currently running, shared by the workers (who add and finish them) and the
// fault injector (who signals them). A pid is only signalled under the registry's lock while
// its attempt is registered, and a worker finishes the attempt before it reaps the process, so
// the injector never signals a pid that could belong to somebody else by then.

#include "attempt.hpp"

#include <sys/types.h>

#include <functional>
#include <map>
#include <mutex>
#include <random>

namespace shedlock::chaos {

struct running_attempt {
    attempt_plan plan;
    pid_t cli = -1;
    std::int64_t spawn_us = 0;
    attempt_faults faults;
    int stopped_command_pidfd = -1;  ///< the command stopped together with `cli`, to continue it
};

class attempt_registry {
public:
    void add(const attempt_plan& plan, pid_t cli, std::int64_t spawn_us);
    /// Unregisters the attempt (its pid may be reaped afterwards) and returns what was done to it.
    attempt_faults finish(std::int64_t id);

    using predicate = std::function<bool(const running_attempt&)>;
    using action = std::function<void(running_attempt&)>;
    /// Under the lock: applies `act` to one running attempt matching `pred`, chosen at random.
    /// False when none matches.
    bool with_random(std::mt19937_64& rng, const predicate& pred, const action& act);
    /// Under the lock: applies `act` to attempt `id` if it is still running.
    bool with_attempt(std::int64_t id, const action& act);
    /// Under the lock: applies `act` to every running attempt.
    void for_each(const action& act);

private:
    std::mutex mutex_;
    std::map<std::int64_t, running_attempt> running_;
};

}  // namespace shedlock::chaos
