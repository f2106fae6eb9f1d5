#pragma once
/// \file
/// A small metrics registry (counters, gauges, histograms) and its Prometheus text exposition.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shedlock {

/// Label names and values of one series, e.g. {{"task", "report"}, {"outcome", "failed"}}.
/// The order is the order of exposition; the same names in another order are another series.
using metric_labels = std::vector<std::pair<std::string, std::string>>;

/// A monotonically increasing count. Lock-free; safe from any thread.
class metric_counter {
public:
    void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> value_{0};
};

/// A value that goes up and down. Lock-free; safe from any thread.
///
/// A gauge may instead follow a counter (follow()): it then reads the counter's value minus its
/// release() calls, e.g. "held" as acquisitions minus releases, which costs a hot path one integer
/// increment per release instead of two floating-point read-modify-writes; set()/add() are then
/// ignored by value().
class metric_gauge {
public:
    void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
    void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
    double value() const noexcept {
        const metric_counter* up = follows_.load(std::memory_order_acquire);
        if (!up) return value_.load(std::memory_order_relaxed);
        const auto down = released_.load(std::memory_order_acquire);  // before `up`: never below 0
        return static_cast<double>(up->value() - down);
    }
    /// From now on the gauge reads `up`'s value minus release() calls; `up` must outlive the gauge
    /// (a series of the same registry does).
    void follow(const metric_counter& up) noexcept { follows_.store(&up, std::memory_order_release); }
    void release() noexcept { released_.fetch_add(1, std::memory_order_release); }

private:
    std::atomic<double> value_{0};
    std::atomic<const metric_counter*> follows_{nullptr};
    std::atomic<std::uint64_t> released_{0};
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
    /// Bucket `i` of bucket_counts(), without the vector.
    std::uint64_t bucket_count(std::size_t i) const noexcept { return buckets_[i].load(std::memory_order_relaxed); }
    /// The sum of the bucket counts.
    std::uint64_t count() const noexcept;
    double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }

private:
    friend class metrics_registry;  // a scrape reads and prefetches the buckets directly
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
    struct family;
    struct render_plan;
    struct render_item;
    static void append_series(std::string& out, const render_item& s);
    family& family_for(std::string_view name, std::string_view help, int type);

    mutable std::mutex mutex_;
    std::map<std::string, std::unique_ptr<family>, std::less<>> families_;
    std::unique_ptr<render_plan> plan_;  // guarded by mutex_; rebuilt by a scrape after a series is added
};

/// `v` escaped as a label value: backslash, double quote and newline become \\, \" and \n.
std::string escape_label_value(std::string_view v);

}  // namespace shedlock
