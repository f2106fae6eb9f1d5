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

/// One thread's share of a metric_counter (metric_counter::this_thread_cell()). Only the thread
/// that obtained it increments it, so an increment is a plain load and store (~1 ns) instead of a
/// locked read-modify-write (~6 ns on the CI machine): what a hot path that counts every lock
/// cycle can afford.
class metric_counter_cell {
public:
    /// Only from the thread that obtained the cell. The release store lets a reader that sees this
    /// increment also see the thread's earlier ones of other cells (a gauge reading "acquired
    /// minus released" never goes below 0).
    void inc(std::uint64_t n = 1) noexcept {
        value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_release);
    }
    std::uint64_t value() const noexcept { return value_.load(std::memory_order_acquire); }

private:
    std::atomic<std::uint64_t> value_{0};
};

/// A monotonically increasing count. Lock-free; safe from any thread.
///
/// inc() is an atomic read-modify-write. A hot path that increments the same counter on every
/// call keeps this_thread_cell() in a thread-local cache and increments that instead; value()
/// adds every thread's cell.
class metric_counter {
public:
    metric_counter() = default;
    metric_counter(const metric_counter&) = delete;
    metric_counter& operator=(const metric_counter&) = delete;
    ~metric_counter();

    void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_release); }
    std::uint64_t value() const noexcept;
    /// The calling thread's cell. The first call of a thread allocates a block of cells at most
    /// (lock-free); a thread that exits hands its cell index to the next thread that starts, so
    /// the cells are bounded by the number of threads alive at once, and no count is lost. The
    /// reference stays valid as long as the counter; keep it only in the thread that asked.
    metric_counter_cell& this_thread_cell();

private:
    struct cell_block;
    std::atomic<std::uint64_t> value_{0};
    std::atomic<cell_block*> cells_{nullptr};  // blocks of cells by thread index, appended, never removed
};

/// A value that goes up and down. Lock-free; safe from any thread.
///
/// A gauge may instead follow a counter (follow()): it then reads the counter's value minus its
/// releases() counter, e.g. "held" as acquisitions minus releases, which costs a hot path one
/// integer increment per release (a thread cell's, see metric_counter) instead of two
/// floating-point read-modify-writes; set()/add() are then ignored by value().
class metric_gauge {
public:
    void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
    void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
    double value() const noexcept {
        const metric_counter* up = follows_.load(std::memory_order_acquire);
        return up ? static_cast<double>(followed_value(*up)) : value_.load(std::memory_order_relaxed);
    }
    /// From now on the gauge reads `up`'s value minus releases(); `up` must outlive the gauge
    /// (a series of the same registry does).
    void follow(const metric_counter& up) noexcept { follows_.store(&up, std::memory_order_release); }
    void release() noexcept { released_.inc(); }
    /// What release() counts, for a hot path that increments its this_thread_cell().
    metric_counter& releases() noexcept { return released_; }

private:
    std::uint64_t followed_value(const metric_counter& up) const noexcept;
    std::atomic<double> value_{0};
    std::atomic<const metric_counter*> follows_{nullptr};
    metric_counter released_;
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

/// `v` escaped as a label value: backslash, double quote and newline become \\, \" and \n, and
/// bytes that are not UTF-8 the text \xNN (see well_formed_utf8), so any value gives a valid
/// Prometheus text-format label value.
std::string escape_label_value(std::string_view v);

}  // namespace shedlock
