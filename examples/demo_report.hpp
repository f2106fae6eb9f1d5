#pragma once
// The demo's verdict: per task firings, executions, skips and duplicates from the run records.

#include <shedlock/run_store.hpp>

#include <string>
#include <vector>

namespace demo {

/// Prints one line per task and returns the total number of duplicates: executions of the same
/// scheduled slot beyond the first, plus executions that started before the previous execution
/// of the task had finished (two instances inside the task at once).
int print_report(shedlock::run_store& store, const std::vector<std::string>& tasks);

}  // namespace demo
