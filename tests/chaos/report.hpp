#pragma once
// The result table of a chaos run (docs/chaos.md, "Reading the table").

#include "analysis.hpp"

#include <string>
#include <vector>

namespace shedlock::chaos {

std::string table_header();
std::string table_row(const std::string& backend, const lane_result& lane);
/// Where each lane's longest gap was, then the violations found, the first few described.
std::string violation_details(const std::string& backend, const std::vector<lane_result>& lanes);

}  // namespace shedlock::chaos
