#pragma once
// The run's own records next to the journal, for reading a failure afterwards:
// attempts.log (one line per `shedlock run`) and faults.log (one line per injected fault),
// times in seconds since the run start.

#include "attempt.hpp"
#include "backend.hpp"
#include "fault_injector.hpp"

#include <string>
#include <vector>

namespace shedlock::chaos {

void write_run_log(const std::string& work_dir, const std::vector<lane>& lanes, const std::vector<attempt_record>& attempts,
                   const std::vector<fault_event>& faults, std::int64_t start_us);

}  // namespace shedlock::chaos
