#include "metric_thread_cells.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>

namespace shedlock {

enum metric_type : int { counter_type, gauge_type, histogram_type };

/// One series' instrument and its lines' text (a type of this file only, hence the long name).
struct family_series {
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
    std::map<metric_labels, family_series> series_by_labels;
};

/// What a scrape walks: the families' headers and series in exposition order, flattened into a
/// vector (rebuilt after a series is added) that holds what the lines need (text, instrument), so
/// a scrape neither chases std::map nodes nor touches family_series, and can prefetch the
/// instruments of the items ahead (10,000 tasks are ~60,000 series scattered over the heap; the
/// plan took a 10,000-task render from ~45 to ~13 ms of CPU, bench/metrics_overhead).
struct metric_render_item {
    const std::string* header = nullptr;  // a family's # HELP and # TYPE lines, or a series:
    const char* text = nullptr;           // its lines' prefixes, joined
    const std::uint32_t* ends = nullptr;  // where each prefix ends in `text`
    std::uint32_t lines = 0;
    const metric_counter* counter = nullptr;
    const metric_gauge* gauge = nullptr;
    const metric_histogram* histogram = nullptr;
};

struct metric_render_plan {
    std::vector<metric_render_item> items;
    std::vector<std::string> headers;
    std::size_t size_hint = 0;  // bytes of text plus room for the numbers
    bool stale = true;
};

struct metrics_registry::state {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<metric_family>, std::less<>> families;  // guarded by mutex
    metric_render_plan plan;  // guarded by mutex; rebuilt by a scrape after a series is added

    metric_family& family_for(std::string_view name, std::string_view help, int type);
    void rebuild_plan();
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

std::string escape_help(std::string_view help) {
    const std::string v = well_formed_utf8(help);  // the text format is UTF-8 (see escape_label_value)
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

/// Appends `name{labels,extra} ` (braces only when there is a label) and ends the line's prefix.
void add_prefix(family_series& s, std::string_view name, std::string_view suffix, const std::string& labels,
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
void add_histogram_prefixes(family_series& s, std::string_view name, const std::string& labels,
                            const std::vector<double>& bounds) {
    for (std::size_t i = 0; i <= bounds.size(); ++i) {
        std::string le = "le=\"";
        if (i < bounds.size()) append_number(le, bounds[i]);
        else le += "+Inf";
        le += '"';
        add_prefix(s, name, "_bucket", labels, le);
    }
    add_prefix(s, name, "_sum", labels);
    add_prefix(s, name, "_count", labels);
}

/// Writes the lines of one series: each prefix, its value, a newline.
class line_writer {
public:
    line_writer(std::string& out, const char* text, const std::uint32_t* ends) : out_(out), text_(text), ends_(ends) {}
    void line(auto value) {
        const std::uint32_t end = ends_[next_++];
        out_.append(text_ + begin_, end - begin_);
        begin_ = end;
        append_number(out_, value);
        out_ += '\n';
    }

private:
    std::string& out_;
    const char* text_;
    const std::uint32_t* ends_;
    std::uint32_t begin_ = 0;
    std::size_t next_ = 0;
};

void append_series(std::string& out, const metric_render_item& s) {
    line_writer w(out, s.text, s.ends);
    if (s.counter) w.line(s.counter->value());
    else if (s.gauge) w.line(s.gauge->value());
    else if (s.histogram) {
        const auto& h = *s.histogram;
        const std::size_t buckets = s.lines - 2;  // the bounds and +Inf
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < buckets; ++i) {
            cumulative += detail::metric_access::buckets(h)[i].load(std::memory_order_relaxed);
            w.line(cumulative);
        }
        w.line(h.sum());
        w.line(cumulative);  // _count, consistent with the +Inf bucket
    }
}

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

metric_family& metrics_registry::state::family_for(std::string_view name, std::string_view help, int type) {
    auto it = families.find(name);
    if (it == families.end()) {
        if (!valid_metric_name(name, false))
            throw configuration_error("metric name \"" + std::string(name) +
                                      "\" is not valid; use [a-zA-Z_:][a-zA-Z0-9_:]*");
        auto f = std::make_unique<metric_family>();
        f->type = type;
        f->help = std::string(help);
        it = families.emplace(std::string(name), std::move(f)).first;
        plan.stale = true;
    } else if (it->second->type != type) {
        throw configuration_error("metric \"" + std::string(name) + "\" is a " + metric_type_name(it->second->type) +
                                  ", not a " + metric_type_name(type) + "; use another name");
    }
    return *it->second;
}

metric_counter& metrics_registry::counter(std::string_view name, std::string_view help, const metric_labels& labels) {
    std::lock_guard lock(state_->mutex);
    auto& f = state_->family_for(name, help, counter_type);
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
    auto& f = state_->family_for(name, help, gauge_type);
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
    auto& f = state_->family_for(name, help, histogram_type);
    auto it = f.series_by_labels.find(labels);
    if (it != f.series_by_labels.end()) return *it->second.histogram;
    if (!std::is_sorted(bounds.begin(), bounds.end()) ||
        std::adjacent_find(bounds.begin(), bounds.end()) != bounds.end() ||
        std::any_of(bounds.begin(), bounds.end(), [](double b) { return !std::isfinite(b); }))
        throw configuration_error("histogram \"" + std::string(name) +
                                  "\": bucket bounds must be finite and strictly ascending");
    family_series s;
    add_histogram_prefixes(s, name, render_labels(name, labels), bounds);
    s.histogram = std::make_unique<metric_histogram>(bounds);
    state_->plan.stale = true;
    return *f.series_by_labels.emplace(labels, std::move(s)).first->second.histogram;
}

std::string metrics_registry::metrics_text() const {
    std::string out;
    metrics_text(out);
    return out;
}

void metrics_registry::state::rebuild_plan() {
    plan.items.clear();
    plan.headers.clear();
    plan.headers.reserve(families.size());  // items point into it: no reallocation below
    plan.size_hint = 0;
    for (const auto& [name, f] : families) {
        plan.headers.push_back("# HELP " + name + " " + escape_help(f->help) + "\n# TYPE " + name + " " +
                               metric_type_name(f->type) + "\n");
        plan.items.push_back({&plan.headers.back()});
        plan.size_hint += plan.headers.back().size();
        for (const auto& [labels, s] : f->series_by_labels) {
            plan.items.push_back({nullptr, s.prefixes.data(), s.prefix_ends.data(),
                                  static_cast<std::uint32_t>(s.prefix_ends.size()), s.counter.get(),
                                  s.gauge.get(), s.histogram.get()});
            plan.size_hint += s.prefixes.size() + 25 * s.prefix_ends.size();  // a number and \n
        }
    }
    plan.stale = false;
}

void metrics_registry::metrics_text(std::string& out) const {
    out.clear();
    std::lock_guard lock(state_->mutex);
    if (state_->plan.stale) state_->rebuild_plan();
    const auto& plan = state_->plan;
    out.reserve(plan.size_hint);
    const std::size_t n = plan.items.size();
    constexpr std::size_t ahead = 8;
    for (std::size_t i = 0; i < n; ++i) {
        if (i + ahead < n) {  // the instrument and text of a series ahead; the buckets of a nearer one
            const auto& a = plan.items[i + ahead];
            __builtin_prefetch(a.text);
            __builtin_prefetch(a.ends);
            __builtin_prefetch(a.counter ? static_cast<const void*>(a.counter)
                               : a.gauge ? static_cast<const void*>(a.gauge)
                                         : static_cast<const void*>(a.histogram));
        }
        if (i + ahead / 2 < n && plan.items[i + ahead / 2].histogram)
            __builtin_prefetch(detail::metric_access::buckets(*plan.items[i + ahead / 2].histogram));
        const auto& item = plan.items[i];
        if (item.header) out += *item.header;
        else append_series(out, item);
    }
}

}  // namespace shedlock
