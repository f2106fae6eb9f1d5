#pragma once
/// \file
/// A small metrics registry (counters, gauges, histograms) and its Prometheus text exposition.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shedlock {

/// Label names and values of one series, e.g. {{"task", "report"}, {"outcome", "failed"}}.
/// The order is the order of exposition; the same names in another order are another series.
using metric_labels = std::vector<std::pair<std::string, std::string>>;

namespace detail {
struct counter_cell_block;
struct gauge_difference;
struct metric_access;
}  // namespace detail

/// A monotonically increasing count. Lock-free; safe from any thread.
class metric_counter {
public:
    metric_counter() = default;
    metric_counter(const metric_counter&) = delete;
    metric_counter& operator=(const metric_counter&) = delete;
    ~metric_counter();

    /// Adds `n`. A reader that sees this increment also sees the thread's earlier ones (release order).
    void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_release); }
    /// Every increment so far, from every thread.
    std::uint64_t value() const noexcept;

private:
    friend struct detail::metric_access;  // core's executor counts through per-thread cells
    std::atomic<std::uint64_t> value_{0};
    std::atomic<detail::counter_cell_block*> cells_{nullptr};
};

/// A value that goes up and down. Lock-free; safe from any thread.
class metric_gauge {
public:
    metric_gauge() = default;
    metric_gauge(const metric_gauge&) = delete;
    metric_gauge& operator=(const metric_gauge&) = delete;
    ~metric_gauge();

    void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
    void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
    /// What set() and add() made it (a gauge of core's own may compute it instead, e.g. lock_held).
    double value() const noexcept;

private:
    friend struct detail::metric_access;  // core's lock_held reads acquisitions minus releases
    std::atomic<double> value_{0};
    std::atomic<detail::gauge_difference*> difference_{nullptr};  // owned; set once, then kept
};

/// Observations counted into fixed buckets (upper bounds, ascending), with their sum and count.
/// observe() is lock-free and safe from any thread; a scrape that races it may see the count
/// one ahead of a bucket (Prometheus tolerates this).
class metric_histogram {
public:
    explicit metric_histogram(std::vector<double> bounds);
    void observe(double v) noexcept;
    const std::vector<double>& bounds() const noexcept { return bounds_; }
    /// Per-bucket (not cumulative) counts; the last is the +Inf bucket.
    std::vector<std::uint64_t> bucket_counts() const;
    /// The sum of the bucket counts.
    std::uint64_t count() const noexcept;
    double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }

private:
    friend struct detail::metric_access;  // a scrape reads the buckets without a vector
    std::vector<double> bounds_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // bounds_.size() + 1
    std::atomic<double> sum_{0};
};

/// Bucket bounds in seconds for task durations, from 10 ms to 30 minutes (7 buckets: each is a
/// line per task in every scrape).
std::vector<double> default_seconds_buckets();

/// Holds every metric of one process (or one test) by name and labels, and renders them in the
/// Prometheus text format 0.0.4. An object, not a global: the scheduler, the executor and the
/// HTTP endpoint are handed the registry they update or expose (scheduler_options::metrics).
///
/// counter()/gauge()/histogram() return the series for `name` + `labels`, creating it on first
/// use; the reference stays valid as long as the registry. Callers on hot paths resolve a series
/// once and keep the reference. A name is one type with one help text: asking for it as another
/// type, or with an invalid metric or label name, throws configuration_error.
///
/// Thread safety: every member is safe for concurrent use without external synchronization.
class metrics_registry {
public:
    metrics_registry();
    metrics_registry(const metrics_registry&) = delete;
    metrics_registry& operator=(const metrics_registry&) = delete;
    ~metrics_registry();

    metric_counter& counter(std::string_view name, std::string_view help, const metric_labels& labels = {});
    metric_gauge& gauge(std::string_view name, std::string_view help, const metric_labels& labels = {});
    /// `bounds` are used when the series is created (ascending, finite); later calls reuse them.
    metric_histogram& histogram(std::string_view name, std::string_view help, const metric_labels& labels = {},
                                const std::vector<double>& bounds = default_seconds_buckets());

    /// Every family sorted by name, its series sorted by labels, in the text format 0.0.4
    /// (`Content-Type: text/plain; version=0.0.4`). Label values and help texts are escaped.
    std::string metrics_text() const;
    /// The same text into `out` (cleared first), reusing its capacity: a server that scrapes
    /// often keeps one buffer and spares the allocator (and the page faults) a large string per
    /// scrape.
    void metrics_text(std::string& out) const;

private:
    struct state;  // families, series and the scrape's render plan, under one mutex
    std::unique_ptr<state> state_;
};

/// `v` escaped as a label value: backslash, double quote and newline become \\, \" and \n, and
/// bytes that are not UTF-8 the text \xNN (see well_formed_utf8), so any value gives a valid
/// Prometheus text-format label value.
std::string escape_label_value(std::string_view v);

}  // namespace shedlock
