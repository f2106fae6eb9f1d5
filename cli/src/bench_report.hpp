#pragma once
// Printing `shedlock bench` results: a table, JSON, an SVG bar chart.

#include "bench_runner.hpp"

#include <string>
#include <vector>

namespace shedlock::cli {

std::string bench_table(const std::vector<provider_figures>& figures);
std::string bench_json(const std::vector<provider_figures>& figures);
/// Grouped bars per provider: single cycles/s, contended acquisitions/s, distinct cycles/s.
std::string bench_svg(const std::vector<provider_figures>& figures);

}  // namespace shedlock::cli
