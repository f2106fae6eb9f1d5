#pragma once
// One chaos run: set up the backend and proxies, run the workers and the fault injector for
// the configured time, collect what happened.

#include "attempt.hpp"
#include "backend.hpp"
#include "fault_injector.hpp"
#include "journal.hpp"
#include "options.hpp"

#include <vector>

namespace shedlock::chaos {

struct run_outcome {
    std::vector<lane> lanes;
    std::vector<attempt_record> attempts;
    std::vector<journal_event> journal;
    std::vector<fault_event> faults;
    std::int64_t start_us = 0;
    std::int64_t end_us = 0;  ///< when the workers were told to stop
    std::string error;  ///< a setup or injector failure: the run proves nothing
};

/// Runs the suite as `options` says. Throws std::runtime_error when the backend cannot be set up.
run_outcome run_chaos(const run_options& options);

}  // namespace shedlock::chaos
