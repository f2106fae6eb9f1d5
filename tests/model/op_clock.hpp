#pragma once
// Where "now" comes from for the model. Against the injected clock it is the manual clock: every
// call happens at one known instant and the model is exact. Against a server clock (Redis,
// use_db_time) the backend's "now" is only known to lie between the client clock read before and
// after the call, widened by how far the server's clock was measured to be from the client's.

#include "time_span.hpp"

#include <suite_support.hpp>

#include <chrono>
#include <string>

namespace shedlock::model {

class op_clock {
public:
    op_clock(conformance::fixture& f, bool exact);

    bool exact() const { return exact_; }
    timestamp read() const;
    /// The span in which a call that ran between `before` and `after` saw the backend's "now".
    time_span window(timestamp before, timestamp after) const;
    /// How far a backend may overshoot when it converts an absolute client time to a TTL on its
    /// own clock and back (Redis PEXPIRE, SQL with use_db_time): at most the call's own duration.
    std::chrono::milliseconds conversion_slack(time_span window) const;
    /// Moves the manual clock, or sleeps.
    void pass(std::chrono::milliseconds d);
    std::chrono::milliseconds tolerance() const { return tolerance_; }

    /// Times in logs, relative to the start of the run ("+1500ms").
    std::string show(timestamp t) const;
    std::string show(time_span s) const;

private:
    static std::chrono::milliseconds measure_tolerance(lock_provider& provider);

    conformance::fixture& fixture_;
    bool exact_;
    std::chrono::milliseconds tolerance_{0};
    timestamp origin_;
};

}  // namespace shedlock::model
