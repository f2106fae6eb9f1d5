// The scrape: the registry's series rendered in the Prometheus text format 0.0.4, from a flat plan
// rebuilt only after a series was added.
#include "metric_families.hpp"

#include <shedlock/utf8.hpp>

#include <charconv>
#include <cmath>

namespace shedlock {
namespace detail {

const char* metric_type_name(int type) {
    switch (type) {
        case counter_type: return "counter";
        case gauge_type: return "gauge";
        default: return "histogram";
    }
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

}  // namespace detail

namespace {

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

class line_writer {
public:
    line_writer(std::string& out, const char* text, const std::uint32_t* ends) : out_(out), text_(text), ends_(ends) {}
    void line(auto value) {
        const std::uint32_t end = ends_[next_++];
        out_.append(text_ + begin_, end - begin_);
        begin_ = end;
        detail::append_number(out_, value);
        out_ += '\n';
    }

private:
    std::string& out_;
    const char* text_;
    const std::uint32_t* ends_;
    std::uint32_t begin_ = 0;
    std::size_t next_ = 0;
};

void append_series(std::string& out, const detail::render_item& s) {
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
                               detail::metric_type_name(f->type) + "\n");
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
