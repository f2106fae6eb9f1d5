#pragma once
// Whether a run really injected what it was configured to: a run in which a configured fault
// kind never fired tested less than its command line says, so it fails (docs/chaos.md).

#include "attempt.hpp"
#include "backend.hpp"
#include "fault_injector.hpp"

#include <set>
#include <string>
#include <vector>

namespace shedlock::chaos {

/// The configured kinds `faults` that apply to a run on `lanes`: network, restart and
/// release_delay faults need a server (SQLite has none); the others always apply (clock faults
/// need libfaketime, which a run with them requires).
std::set<std::string> applicable_fault_kinds(const std::set<std::string>& faults, const std::vector<lane>& lanes);

/// The kinds of `applicable` that never fired: no injector event of that kind, and for the
/// kinds drawn per attempt (clock, clock_jump) no attempt that ran with one.
std::vector<std::string> unfired_fault_kinds(const std::set<std::string>& applicable,
                                             const std::vector<fault_event>& faults,
                                             const std::vector<attempt_record>& attempts);

}  // namespace shedlock::chaos
