#pragma once
// Printing `shedlock bench` results: a table, JSON, an SVG bar chart.

#include "bench_runner.hpp"

#include <string>
#include <vector>

namespace shedlock::cli {

std::string bench_table(const std::vector<provider_figures>& figures);
std::string bench_json(const std::vector<provider_figures>& figures);
/// A stand-alone SVG picture, one panel per metric with its axis and unit: cycles/s on one
/// thread, acquisitions/s of the contenders on one name, cycles/s on distinct names (linear), and
/// p50/p99/max of a full cycle and of a contended try_lock (log scale). One bar row per provider,
/// labelled with its scheme and host.
std::string bench_svg(const std::vector<provider_figures>& figures);

}  // namespace shedlock::cli
