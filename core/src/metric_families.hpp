#pragma once
// The registry's families and series, and the flat plan a scrape walks: shared by metrics.cpp
// (creating series) and metrics_text.cpp (rendering them).

#include "metric_thread_cells.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock {
namespace detail {

enum metric_type : int { counter_type, gauge_type, histogram_type };

/// One series' instrument and its lines' text.
struct metric_series {
    // Every line's text before its value (`name_bucket{a="x",le="0.1"} `), escaped and joined once
    // at creation into one string (prefix_ends[i] is where line i's prefix ends): a scrape of
    // 10,000 tasks then only copies contiguous text and formats numbers.
    std::string prefixes;
    std::vector<std::uint32_t> prefix_ends;
    std::unique_ptr<metric_counter> counter;
    std::unique_ptr<metric_gauge> gauge;
    std::unique_ptr<metric_histogram> histogram;
};

struct metric_family {
    int type = counter_type;
    std::string help;
    std::map<metric_labels, metric_series> series_by_labels;
};

/// What a scrape walks: the families' headers and series in exposition order, flattened into a
/// vector (rebuilt after a series is added) that holds what the lines need (text, instrument), so
/// a scrape neither chases std::map nodes nor touches metric_series, and can prefetch the
/// instruments of the items ahead (10,000 tasks are ~60,000 series scattered over the heap; the
/// plan took a 10,000-task render from ~45 to ~13 ms of CPU, bench/metrics_overhead).
struct render_item {
    const std::string* header = nullptr;  // a family's # HELP and # TYPE lines, or a series:
    const char* text = nullptr;           // its lines' prefixes, joined
    const std::uint32_t* ends = nullptr;  // where each prefix ends in `text`
    std::uint32_t lines = 0;
    const metric_counter* counter = nullptr;
    const metric_gauge* gauge = nullptr;
    const metric_histogram* histogram = nullptr;
};

struct render_plan {
    std::vector<render_item> items;
    std::vector<std::string> headers;
    std::size_t size_hint = 0;  // bytes of text plus room for the numbers
    bool stale = true;
};

const char* metric_type_name(int type);
void append_number(std::string& out, double v);
void append_number(std::string& out, std::uint64_t v);

}  // namespace detail

struct metrics_registry::state {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<detail::metric_family>, std::less<>> families;  // guarded by mutex
    detail::render_plan plan;  // guarded by mutex; rebuilt by a scrape after a series is added

    detail::metric_family& family_for(std::string_view name, std::string_view help, int type);
    void rebuild_plan();
};

}  // namespace shedlock
