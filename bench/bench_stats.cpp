#include "bench_stats.hpp"

#include <algorithm>
#include <cstdio>

namespace shedlock::bench {

latency_summary summarize(std::vector<std::int64_t>& samples_ns) {
    latency_summary s;
    if (samples_ns.empty()) return s;
    std::sort(samples_ns.begin(), samples_ns.end());
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(q * static_cast<double>(samples_ns.size() - 1));
        return static_cast<double>(samples_ns[i]) / 1000.0;
    };
    s.count = samples_ns.size();
    s.p50_us = at(0.50);
    s.p99_us = at(0.99);
    s.p999_us = at(0.999);
    s.max_us = static_cast<double>(samples_ns.back()) / 1000.0;
    return s;
}

std::string format(const latency_summary& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "n=%zu p50=%.0fus p99=%.0fus p999=%.0fus max=%.1fms", s.count, s.p50_us, s.p99_us,
                  s.p999_us, s.max_us / 1000.0);
    return buf;
}

}  // namespace shedlock::bench
