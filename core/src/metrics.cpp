#include <shedlock/error.hpp>
#include <shedlock/metrics.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace shedlock {

enum metric_type : int { counter_type, gauge_type, histogram_type };

struct metrics_registry::family {
    int type = counter_type;
    std::string help;
    struct series {
        // Every line's text before its value (`name_bucket{a="x",le="0.1"} `), escaped and joined
        // once at creation: a scrape of 10,000 tasks then only appends and formats numbers.
        std::vector<std::string> prefixes;
        std::unique_ptr<metric_counter> counter;
        std::unique_ptr<metric_gauge> gauge;
        std::unique_ptr<metric_histogram> histogram;
    };
    std::map<metric_labels, series> series_by_labels;
};

namespace {

const char* metric_type_name(int type) {
    switch (type) {
        case counter_type: return "counter";
        case gauge_type: return "gauge";
        default: return "histogram";
    }
}

bool valid_metric_name(std::string_view n, bool label) {
    if (n.empty()) return false;
    for (std::size_t i = 0; i < n.size(); ++i) {
        const char c = n[i];
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    return !(label && n.size() >= 2 && n.substr(0, 2) == "__");
}

std::string escape_help(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string render_labels(std::string_view metric, const metric_labels& labels) {
    std::string out;
    for (const auto& [name, value] : labels) {
        if (!valid_metric_name(name, true) || name == "le")
            throw configuration_error("metric \"" + std::string(metric) + "\": label name \"" + name +
                                      "\" is not valid; use [a-zA-Z_][a-zA-Z0-9_]* (not \"le\", not starting with __)");
        if (!out.empty()) out += ',';
        out += name + "=\"" + escape_label_value(value) + '"';
    }
    return out;
}

void append_number(std::string& out, double v) {
    if (std::isnan(v)) { out += "NaN"; return; }
    if (std::isinf(v)) { out += v > 0 ? "+Inf" : "-Inf"; return; }
    char buf[32];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_number(std::string& out, std::uint64_t v) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// `name{labels,extra} ` (braces only when there is a label).
std::string series_prefix(std::string_view name, std::string_view suffix, const std::string& labels,
                          std::string_view extra = {}) {
    std::string out;
    out.append(name).append(suffix);
    if (!labels.empty() || !extra.empty()) {
        out += '{';
        out += labels;
        if (!labels.empty() && !extra.empty()) out += ',';
        out.append(extra);
        out += '}';
    }
    out += ' ';
    return out;
}

/// The bucket lines' prefixes, then _sum's and _count's.
std::vector<std::string> histogram_prefixes(std::string_view name, const std::string& labels,
                                            const std::vector<double>& bounds) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i <= bounds.size(); ++i) {
        std::string le = "le=\"";
        if (i < bounds.size()) append_number(le, bounds[i]);
        else le += "+Inf";
        le += '"';
        out.push_back(series_prefix(name, "_bucket", labels, le));
    }
    out.push_back(series_prefix(name, "_sum", labels));
    out.push_back(series_prefix(name, "_count", labels));
    return out;
}

void append_line(std::string& out, const std::string& prefix, auto value) {
    out += prefix;
    append_number(out, value);
    out += '\n';
}

void append_histogram(std::string& out, const std::vector<std::string>& prefixes, const metric_histogram& h) {
    const std::size_t buckets = prefixes.size() - 2;  // the bounds and +Inf
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < buckets; ++i) {
        cumulative += h.bucket_count(i);
        append_line(out, prefixes[i], cumulative);
    }
    append_line(out, prefixes[buckets], h.sum());
    append_line(out, prefixes[buckets + 1], cumulative);  // consistent with the +Inf bucket
}

}  // namespace

std::string escape_label_value(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

metric_histogram::metric_histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
    for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void metric_histogram::observe(double v) noexcept {
    const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);  // first bound >= v: le is inclusive
    buckets_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(v, std::memory_order_relaxed);
}

std::uint64_t metric_histogram::count() const noexcept {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i <= bounds_.size(); ++i) n += buckets_[i].load(std::memory_order_relaxed);
    return n;
}

std::vector<std::uint64_t> metric_histogram::bucket_counts() const {
    std::vector<std::uint64_t> out(bounds_.size() + 1);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = buckets_[i].load(std::memory_order_relaxed);
    return out;
}

std::vector<double> default_seconds_buckets() {
    return {0.01, 0.1, 1, 10, 60, 300, 1800};
}

metrics_registry::metrics_registry() = default;
metrics_registry::~metrics_registry() = default;

metrics_registry::family& metrics_registry::family_for(std::string_view name, std::string_view help, int type) {
    auto it = families_.find(name);
    if (it == families_.end()) {
        if (!valid_metric_name(name, false))
            throw configuration_error("metric name \"" + std::string(name) +
                                      "\" is not valid; use [a-zA-Z_:][a-zA-Z0-9_:]*");
        auto f = std::make_unique<family>();
        f->type = type;
        f->help = std::string(help);
        it = families_.emplace(std::string(name), std::move(f)).first;
    } else if (it->second->type != type) {
        throw configuration_error("metric \"" + std::string(name) + "\" is a " + metric_type_name(it->second->type) +
                                  ", not a " + metric_type_name(type) + "; use another name");
    }
    return *it->second;
}

metric_counter& metrics_registry::counter(std::string_view name, std::string_view help, const metric_labels& labels) {
    std::lock_guard lock(mutex_);
    auto& f = family_for(name, help, counter_type);
    auto& s = f.series_by_labels[labels];
    if (!s.counter) {
        s.prefixes = {series_prefix(name, "", render_labels(name, labels))};
        s.counter = std::make_unique<metric_counter>();
    }
    return *s.counter;
}

metric_gauge& metrics_registry::gauge(std::string_view name, std::string_view help, const metric_labels& labels) {
    std::lock_guard lock(mutex_);
    auto& f = family_for(name, help, gauge_type);
    auto& s = f.series_by_labels[labels];
    if (!s.gauge) {
        s.prefixes = {series_prefix(name, "", render_labels(name, labels))};
        s.gauge = std::make_unique<metric_gauge>();
    }
    return *s.gauge;
}

metric_histogram& metrics_registry::histogram(std::string_view name, std::string_view help,
                                              const metric_labels& labels, const std::vector<double>& bounds) {
    std::lock_guard lock(mutex_);
    auto& f = family_for(name, help, histogram_type);
    auto it = f.series_by_labels.find(labels);
    if (it != f.series_by_labels.end()) return *it->second.histogram;
    if (!std::is_sorted(bounds.begin(), bounds.end()) ||
        std::adjacent_find(bounds.begin(), bounds.end()) != bounds.end() ||
        std::any_of(bounds.begin(), bounds.end(), [](double b) { return !std::isfinite(b); }))
        throw configuration_error("histogram \"" + std::string(name) +
                                  "\": bucket bounds must be finite and strictly ascending");
    family::series s;
    s.prefixes = histogram_prefixes(name, render_labels(name, labels), bounds);
    s.histogram = std::make_unique<metric_histogram>(bounds);
    return *f.series_by_labels.emplace(labels, std::move(s)).first->second.histogram;
}

std::string metrics_registry::metrics_text() const {
    std::string out;
    metrics_text(out);
    return out;
}

void metrics_registry::metrics_text(std::string& out) const {
    out.clear();
    std::lock_guard lock(mutex_);
    std::size_t size = 0;
    for (const auto& [name, f] : families_)
        for (const auto& [labels, s] : f->series_by_labels)
            for (const auto& p : s.prefixes) size += p.size() + 24;
    out.reserve(size);
    for (const auto& [name, f] : families_) {
        out.append("# HELP ").append(name).append(" ").append(escape_help(f->help)).append("\n");
        out.append("# TYPE ").append(name).append(" ").append(metric_type_name(f->type)).append("\n");
        for (const auto& [labels, s] : f->series_by_labels) {
            if (s.counter) append_line(out, s.prefixes[0], s.counter->value());
            else if (s.gauge) append_line(out, s.prefixes[0], s.gauge->value());
            else if (s.histogram) append_histogram(out, s.prefixes, *s.histogram);
        }
    }
}

}  // namespace shedlock
