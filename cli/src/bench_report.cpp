#include "bench_report.hpp"

#include "output.hpp"

#include <cstdio>

namespace shedlock::cli {
namespace {

std::string fixed(double v, int decimals = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string us(double v) { return v >= 1000 ? fixed(v / 1000, 2) + "ms" : fixed(v, 0) + "us"; }

std::string json_latency(const latency& l) {
    return "{\"p50_us\": " + fixed(l.p50_us, 1) + ", \"p99_us\": " + fixed(l.p99_us, 1) + ", \"max_us\": " + fixed(l.max_us, 1) + "}";
}

}  // namespace

std::string bench_table(const std::vector<provider_figures>& figures) {
    std::vector<std::vector<std::string>> rows{{"PROVIDER", "CYCLES/S", "P50", "P99", "MAX", "CYCLE P50", "CYCLE P99",
                                                "CONTENDED ACQ/S", "ATTEMPTS/S", "FAIRNESS", "ATTEMPT P99", "DISTINCT CYCLES/S"}};
    for (const auto& f : figures)
        rows.push_back({f.provider, fixed(f.single_cycles_per_s), us(f.single_latency.p50_us), us(f.single_latency.p99_us),
                        us(f.single_latency.max_us), us(f.cycle_latency.p50_us), us(f.cycle_latency.p99_us),
                        fixed(f.contended_acquisitions_per_s),
                        fixed(f.contended_attempts_per_s), fixed(f.fairness, 2), us(f.contended_latency.p99_us),
                        fixed(f.distinct_cycles_per_s)});
    return format_table(rows);
}

std::string bench_json(const std::vector<provider_figures>& figures) {
    std::string out = "[";
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const auto& f = figures[i];
        out += std::string(i ? "," : "") + "\n {\"provider\": " + json_string(f.provider) +
               ", \"single\": {\"cycles_per_s\": " + fixed(f.single_cycles_per_s, 1) +
               ", \"latency\": " + json_latency(f.single_latency) +
               ", \"cycle_latency\": " + json_latency(f.cycle_latency) + "}" + ", \"contended\": {\"contenders\": " +
               std::to_string(f.contenders) + ", \"acquisitions_per_s\": " + fixed(f.contended_acquisitions_per_s, 1) +
               ", \"attempts_per_s\": " + fixed(f.contended_attempts_per_s, 1) + ", \"fairness\": " + fixed(f.fairness, 3) +
               ", \"attempt_latency\": " + json_latency(f.contended_latency) + "}" +
               ", \"distinct\": {\"cycles_per_s\": " + fixed(f.distinct_cycles_per_s, 1) + "}}";
    }
    return out + (figures.empty() ? "]\n" : "\n]\n");
}

}  // namespace shedlock::cli
