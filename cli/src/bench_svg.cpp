// `shedlock bench --svg`: one panel per metric, horizontal bars (one row per provider), so long
// labels never collide. Every axis is on a log scale: p50, p99 and max differ by decades, and so do
// the throughputs of memory and of a server (a linear axis drew SQLite's bar 1 px beside memory's).
#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::cli {
namespace {

constexpr int chart_width = 440;  ///< bar area of every panel
constexpr int bar_height = 12, bar_gap = 3, group_gap = 10;
constexpr int label_size = 12, value_size = 10, title_size = 13;
constexpr double margin = 16;

/// An upper bound of a text's width in the sans-serif fonts browsers pick (DejaVu Sans, Liberation
/// Sans, Arial average about 0.55-0.6 em per character): layout reserves room with it.
double text_width(const std::string& text, int size) {
    std::size_t chars = 0;
    for (unsigned char c : text) chars += (c & 0xC0) != 0x80;  // UTF-8: count code points
    return static_cast<double>(chars) * size * 0.66;
}

std::string xml_escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::string svg_number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// 12345.6 -> "12,346"
std::string grouped(double v) {
    std::string digits = svg_number(v, 0);
    for (int i = static_cast<int>(digits.size()) - 3; i > (digits[0] == '-' ? 1 : 0); i -= 3) digits.insert(i, ",");
    return digits;
}

/// A duration given in microseconds with a unit that keeps it short: "850 µs", "1.25 ms", "2.1 s".
std::string duration_text(double us) {
    if (us < 1) return svg_number(us, 2) + " µs";
    if (us < 1000) return svg_number(us, 0) + " µs";
    if (us < 1e6) return svg_number(us / 1000, us < 1e4 ? 2 : us < 1e5 ? 1 : 0) + " ms";
    return svg_number(us / 1e6, 2) + " s";
}

/// An axis label: `v` in the largest of three units, each 1000 times the last, that keeps it >= 1.
std::string tick_in(double v, const char* const (&units)[3]) {
    int unit = 0;
    for (; unit < 2 && v >= 1000; ++unit) v /= 1000;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g%s", v, units[unit]);
    return buf;
}

/// "100 µs", "1 ms", "10 s"
std::string duration_tick(double us) { return tick_in(us, {" µs", " ms", " s"}); }

/// "500", "20k", "1.5M"
std::string count_tick(double v) { return tick_in(v, {"", "k", "M"}); }

struct bar_series {
    std::string name;
    const char* color;
};

/// One metric: a group of bars per provider (one bar per series).
struct chart_panel {
    std::string title;       ///< what and in which unit
    std::string axis_title;  ///< under the axis
    std::vector<bar_series> legend;              ///< one per bar of a group; shown when more than one
    std::vector<std::vector<double>> values;  ///< [provider][series]
    std::string (*format)(double);  ///< a bar's value
    std::string (*tick)(double);    ///< an axis label
    const char* zero;               ///< a bar's value when it is 0 ("0" events, or no samples: "n/a")
};

/// The smallest positive and the largest value; {inf, 0} when none is positive.
std::pair<double, double> value_range(const chart_panel& p) {
    double low = INFINITY, high = 0;
    for (const auto& row : p.values)
        for (double v : row)
            if (v > 0) low = std::min(low, v), high = std::max(high, v);
    return {low, high};
}

/// Maps a value to a bar length in [0, chart_width] on a log scale.
struct axis_scale {
    double low = 0, high = 1;  ///< the decades (exponents) at either end of the axis

    double operator()(double v) const {
        if (v <= 0) return 0;
        return std::clamp((std::log10(v) - low) / (high - low), 0.0, 1.0) * chart_width;
    }
};

/// From the decade below the smallest value's to the one above the largest: the shortest bar is
/// at least a decade long, never a pixel beside the others.
axis_scale scale_for(const chart_panel& p) {
    const auto [low, high] = value_range(p);
    if (high <= 0) return {0, 1};
    const double lo = std::floor(std::log10(low)) - 1, hi = std::ceil(std::log10(high));
    return {lo, std::max(hi, lo + 2)};
}

std::vector<double> ticks_of(const axis_scale& s) {
    std::vector<double> out;
    for (double e = s.low; e <= s.high + 1e-9; ++e) out.push_back(std::pow(10.0, e));
    return out;
}

/// Writes panels top to bottom; `left` is where the bars start (after the provider labels).
struct svg_canvas {
    std::string body;
    double left = 0;
    double y = 0;

    void text(double x, double baseline, int size, const std::string& s, const char* extra = "") {
        body += "<text x=\"" + svg_number(x, 1) + "\" y=\"" + svg_number(baseline, 1) + "\" font-size=\"" +
                std::to_string(size) + "\"" + extra + ">" + xml_escaped(s) + "</text>\n";
    }
    void rect(double x, double top, double w, double h, const char* color, const std::string& tip = "") {
        body += "<rect x=\"" + svg_number(x, 1) + "\" y=\"" + svg_number(top, 1) + "\" width=\"" + svg_number(w, 1) +
                "\" height=\"" + svg_number(h, 1) + "\" fill=\"" + color + "\">" +
                (tip.empty() ? "" : "<title>" + xml_escaped(tip) + "</title>") + "</rect>\n";
    }
    void line(double x1, double y1, double x2, double y2, const char* color) {
        body += "<line x1=\"" + svg_number(x1, 1) + "\" y1=\"" + svg_number(y1, 1) + "\" x2=\"" + svg_number(x2, 1) +
                "\" y2=\"" + svg_number(y2, 1) + "\" stroke=\"" + color + "\"/>\n";
    }
};

void draw_legend(svg_canvas& c, const chart_panel& p) {
    if (p.legend.size() < 2) return;
    double x = c.left;
    for (const auto& s : p.legend) {
        c.rect(x, c.y, 10, 10, s.color);
        c.text(x + 14, c.y + 9.5, value_size, s.name);
        x += 14 + text_width(s.name, value_size) + 16;
    }
    c.y += 18;
}

void draw_bars(svg_canvas& c, const chart_panel& p, const axis_scale& s, const std::vector<std::string>& labels) {
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const double group = static_cast<double>(p.legend.size()) * (bar_height + bar_gap) - bar_gap;
        c.text(c.left - 8, c.y + group / 2 + label_size * 0.35, label_size, labels[i], " text-anchor=\"end\"");
        for (std::size_t k = 0; k < p.legend.size(); ++k) {
            const double v = p.values[i][k], w = s(v);
            const std::string shown = v > 0 ? p.format(v) : p.zero;
            c.rect(c.left, c.y, w, bar_height, p.legend[k].color, p.legend[k].name + ": " + shown);
            c.text(c.left + w + 4, c.y + bar_height - 2, value_size, shown);
            c.y += bar_height + bar_gap;
        }
        c.y += group_gap - bar_gap;
    }
}

void draw_axis(svg_canvas& c, const chart_panel& p, const axis_scale& s) {
    c.line(c.left, c.y, c.left + chart_width, c.y, "#333");
    for (double t : ticks_of(s)) {
        const double x = c.left + s(t);
        c.line(x, c.y, x, c.y + 4, "#333");
        c.text(x, c.y + 15, value_size, p.tick(t), " text-anchor=\"middle\"");
    }
    c.text(c.left + chart_width / 2.0, c.y + 30, value_size, p.axis_title + ", log scale",
           " text-anchor=\"middle\" fill=\"#555\"");
    c.y += 48;
}

void draw_panel(svg_canvas& c, const chart_panel& p, const std::vector<std::string>& labels) {
    c.text(margin, c.y + title_size, title_size, p.title, " font-weight=\"bold\"");
    c.y += title_size + 10;
    draw_legend(c, p);
    const axis_scale s = scale_for(p);
    draw_bars(c, p, s, labels);
    draw_axis(c, p, s);
}

chart_panel throughput_panel(std::string title, std::string axis, bar_series series) {
    return {std::move(title), std::move(axis), {std::move(series)}, {}, grouped, count_tick, "0"};
}

chart_panel latency_panel(std::string title) {
    const std::vector<bar_series> quantiles{{"p50", "#59a14f"}, {"p99", "#f28e2b"}, {"max", "#e15759"}};
    return {std::move(title), "latency", quantiles, {}, duration_text, duration_tick, "n/a"};
}

std::vector<chart_panel> panels_of(const std::vector<provider_figures>& figures) {
    const std::string n = std::to_string(figures.empty() ? 0 : figures.front().contenders);
    std::vector<chart_panel> panels{
        throughput_panel("Lock + unlock cycles per second, one thread (higher is better)", "cycles per second",
                         {"cycles/s", "#4e79a7"}),
        throughput_panel("Acquisitions per second, " + n + " contenders on one name", "acquisitions per second",
                         {"acquisitions/s", "#76b7b2"}),
        throughput_panel("Cycles per second, " + n + " contenders on distinct names", "cycles per second",
                         {"cycles/s", "#9c755f"}),
        latency_panel("Full cycle latency (try_lock + unlock), one thread (lower is better)"),
        latency_panel("try_lock latency, " + n + " contenders on one name")};
    for (const auto& f : figures) {
        panels[0].values.push_back({f.single_cycles_per_s});
        panels[1].values.push_back({f.contended_acquisitions_per_s});
        panels[2].values.push_back({f.distinct_cycles_per_s});
        panels[3].values.push_back({f.cycle_latency.p50_us, f.cycle_latency.p99_us, f.cycle_latency.max_us});
        panels[4].values.push_back({f.contended_latency.p50_us, f.contended_latency.p99_us, f.contended_latency.max_us});
    }
    return panels;
}

/// The picture's width: the bars and the widest value label right of the longest bar, or the
/// widest title.
double width_of(const std::vector<chart_panel>& panels, double left) {
    double value = 0, title = 0;
    for (const auto& p : panels) {
        title = std::max(title, text_width(p.title, title_size));
        for (const auto& row : p.values)
            for (double v : row) value = std::max(value, text_width(p.format(v), value_size));
    }
    return std::max(left + chart_width + std::max(4 + value, 30.0), margin + title * 1.1) + margin;  // bold titles: wider
}

/// "scheme://host:port" of a (redacted) URI, "sqlite:FILE" without the directory: bar labels.
std::string short_provider_label(const std::string& uri) {
    const auto colon = uri.find(':');
    if (colon == std::string::npos) return uri;
    const std::string scheme = uri.substr(0, colon);
    std::string rest = uri.substr(colon + 1);
    rest = rest.substr(0, rest.find('?'));
    if (rest.rfind("//", 0) == 0) {  // scheme://[user[:password]@]host[:port][/path]
        std::string authority = rest.substr(2, rest.find('/', 2) - 2);
        if (const auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
        return scheme + "://" + authority;
    }
    if (const auto slash = rest.rfind('/'); slash != std::string::npos) rest.erase(0, slash + 1);  // sqlite: file name
    return rest.empty() ? scheme : scheme + ":" + rest;
}

}  // namespace

std::string bench_svg(const std::vector<provider_figures>& figures) {
    std::vector<std::string> labels;
    for (const auto& f : figures) {
        std::string label = short_provider_label(f.provider);
        if (label.size() > 40) label = label.substr(0, 39) + "…";
        const auto same = std::count(labels.begin(), labels.end(), label);  // the same host twice: number them
        labels.push_back(same ? label + " #" + std::to_string(same + 1) : label);
    }
    const auto panels = panels_of(figures);
    double widest_label = 0;
    for (const auto& l : labels) widest_label = std::max(widest_label, text_width(l, label_size));
    svg_canvas c;
    c.left = margin + widest_label + 8;
    c.y = 12;
    for (const auto& p : panels) draw_panel(c, p, labels);
    const double width = width_of(panels, c.left);
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(std::ceil(width), 0) + "\" height=\"" +
           svg_number(std::ceil(c.y), 0) + "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
           c.body + "</svg>\n";
}

}  // namespace shedlock::cli
