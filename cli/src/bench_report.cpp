#include "bench_report.hpp"

#include "output.hpp"

#include <algorithm>
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
    std::vector<std::vector<std::string>> rows{{"PROVIDER", "CYCLES/S", "P50", "P99", "MAX", "CONTENDED ACQ/S", "ATTEMPTS/S",
                                                "FAIRNESS", "ATTEMPT P99", "DISTINCT CYCLES/S"}};
    for (const auto& f : figures)
        rows.push_back({f.provider, fixed(f.single_cycles_per_s), us(f.single_latency.p50_us), us(f.single_latency.p99_us),
                        us(f.single_latency.max_us), fixed(f.contended_acquisitions_per_s),
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
               ", \"latency\": " + json_latency(f.single_latency) + "}" + ", \"contended\": {\"contenders\": " +
               std::to_string(f.contenders) + ", \"acquisitions_per_s\": " + fixed(f.contended_acquisitions_per_s, 1) +
               ", \"attempts_per_s\": " + fixed(f.contended_attempts_per_s, 1) + ", \"fairness\": " + fixed(f.fairness, 3) +
               ", \"attempt_latency\": " + json_latency(f.contended_latency) + "}" +
               ", \"distinct\": {\"cycles_per_s\": " + fixed(f.distinct_cycles_per_s, 1) + "}}";
    }
    return out + (figures.empty() ? "]\n" : "\n]\n");
}

std::string bench_svg(const std::vector<provider_figures>& figures) {
    const int bar = 28, gap = 50, chart_h = 300, left = 60, top = 40;
    const int width = left + static_cast<int>(figures.size()) * (3 * bar + gap) + 220;
    double max_value = 1;
    for (const auto& f : figures)
        max_value = std::max({max_value, f.single_cycles_per_s, f.contended_acquisitions_per_s, f.distinct_cycles_per_s});
    const char* colors[] = {"#4e79a7", "#f28e2b", "#59a14f"};
    const char* series[] = {"single cycles/s", "contended acquisitions/s", "distinct-name cycles/s"};
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                      std::to_string(chart_h + top + 120) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg += "<text x=\"" + std::to_string(left) + "\" y=\"20\" font-size=\"15\">shedlock bench: lock cycles per second</text>\n";
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const auto& f = figures[i];
        const double values[] = {f.single_cycles_per_s, f.contended_acquisitions_per_s, f.distinct_cycles_per_s};
        const int x0 = left + static_cast<int>(i) * (3 * bar + gap);
        for (int s = 0; s < 3; ++s) {
            const int h = static_cast<int>(values[s] / max_value * chart_h);
            const int x = x0 + s * bar;
            svg += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top + chart_h - h) + "\" width=\"" +
                   std::to_string(bar - 4) + "\" height=\"" + std::to_string(h) + "\" fill=\"" + colors[s] + "\"><title>" +
                   series[s] + ": " + fixed(values[s]) + "</title></rect>\n";
            svg += "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top + chart_h - h - 4) +
                   "\" font-size=\"9\">" + fixed(values[s]) + "</text>\n";
        }
        std::string label = f.provider.substr(0, 28);
        for (auto& c : label) if (c == '<' || c == '>' || c == '&') c = '_';
        svg += "<text x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(top + chart_h + 16) + "\">" + label + "</text>\n";
    }
    for (int s = 0; s < 3; ++s)
        svg += "<rect x=\"" + std::to_string(left + s * 190) + "\" y=\"" + std::to_string(top + chart_h + 40) +
               "\" width=\"12\" height=\"12\" fill=\"" + colors[s] + "\"/><text x=\"" + std::to_string(left + s * 190 + 16) +
               "\" y=\"" + std::to_string(top + chart_h + 50) + "\">" + series[s] + "</text>\n";
    return svg + "</svg>\n";
}

}  // namespace shedlock::cli
