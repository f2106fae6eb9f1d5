#include "metric_families.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <cmath>

namespace shedlock {
namespace {

bool valid_metric_name(std::string_view n, bool label) {
    if (n.empty()) return false;
    for (std::size_t i = 0; i < n.size(); ++i) {
        const char c = n[i];
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    return !(label && n.size() >= 2 && n.substr(0, 2) == "__");
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

void add_prefix(detail::metric_series& s, std::string_view name, std::string_view suffix, const std::string& labels,
                std::string_view extra = {}) {
    auto& out = s.prefixes;
    out.append(name).append(suffix);
    if (!labels.empty() || !extra.empty()) {
        out += '{';
        out += labels;
        if (!labels.empty() && !extra.empty()) out += ',';
        out.append(extra);
        out += '}';
    }
    out += ' ';
    s.prefix_ends.push_back(static_cast<std::uint32_t>(out.size()));
}

/// The bucket lines' prefixes, then _sum's and _count's.
void add_histogram_prefixes(detail::metric_series& s, std::string_view name, const std::string& labels,
                            const std::vector<double>& bounds) {
    for (std::size_t i = 0; i <= bounds.size(); ++i) {
        std::string le = "le=\"";
        if (i < bounds.size()) detail::append_number(le, bounds[i]);
        else le += "+Inf";
        le += '"';
        add_prefix(s, name, "_bucket", labels, le);
    }
    add_prefix(s, name, "_sum", labels);
    add_prefix(s, name, "_count", labels);
}

/// Writes the lines of one series: each prefix, its value, a newline.

}  // namespace

std::string escape_label_value(std::string_view value) {
    // The text format is UTF-8: one stray byte and Prometheus rejects the entire scrape, every
    // series of the process included. Such bytes become visible \xNN text first.
    const std::string v = well_formed_utf8(value);
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

metrics_registry::metrics_registry() : state_(std::make_unique<state>()) {}
metrics_registry::~metrics_registry() = default;

detail::metric_family& metrics_registry::state::family_for(std::string_view name, std::string_view help, int type) {
    auto it = families.find(name);
    if (it == families.end()) {
        if (!valid_metric_name(name, false))
            throw configuration_error("metric name \"" + std::string(name) +
                                      "\" is not valid; use [a-zA-Z_:][a-zA-Z0-9_:]*");
        auto f = std::make_unique<detail::metric_family>();
        f->type = type;
        f->help = std::string(help);
        it = families.emplace(std::string(name), std::move(f)).first;
        plan.stale = true;
    } else if (it->second->type != type) {
        throw configuration_error("metric \"" + std::string(name) + "\" is a " +
                                  detail::metric_type_name(it->second->type) + ", not a " +
                                  detail::metric_type_name(type) + "; use another name");
    }
    return *it->second;
}

metric_counter& metrics_registry::counter(std::string_view name, std::string_view help, const metric_labels& labels) {
    std::lock_guard lock(state_->mutex);
    auto& f = state_->family_for(name, help, detail::counter_type);
    auto& s = f.series_by_labels[labels];
    if (!s.counter) {
        add_prefix(s, name, "", render_labels(name, labels));
        s.counter = std::make_unique<metric_counter>();
        state_->plan.stale = true;
    }
    return *s.counter;
}

metric_gauge& metrics_registry::gauge(std::string_view name, std::string_view help, const metric_labels& labels) {
    std::lock_guard lock(state_->mutex);
    auto& f = state_->family_for(name, help, detail::gauge_type);
    auto& s = f.series_by_labels[labels];
    if (!s.gauge) {
        add_prefix(s, name, "", render_labels(name, labels));
        s.gauge = std::make_unique<metric_gauge>();
        state_->plan.stale = true;
    }
    return *s.gauge;
}

metric_histogram& metrics_registry::histogram(std::string_view name, std::string_view help,
                                              const metric_labels& labels, const std::vector<double>& bounds) {
    std::lock_guard lock(state_->mutex);
    auto& f = state_->family_for(name, help, detail::histogram_type);
    auto it = f.series_by_labels.find(labels);
    if (it != f.series_by_labels.end()) return *it->second.histogram;
    if (!std::is_sorted(bounds.begin(), bounds.end()) ||
        std::adjacent_find(bounds.begin(), bounds.end()) != bounds.end() ||
        std::any_of(bounds.begin(), bounds.end(), [](double b) { return !std::isfinite(b); }))
        throw configuration_error("histogram \"" + std::string(name) +
                                  "\": bucket bounds must be finite and strictly ascending");
    detail::metric_series s;
    add_histogram_prefixes(s, name, render_labels(name, labels), bounds);
    s.histogram = std::make_unique<metric_histogram>(bounds);
    state_->plan.stale = true;
    return *f.series_by_labels.emplace(labels, std::move(s)).first->second.histogram;
}

}  // namespace shedlock
