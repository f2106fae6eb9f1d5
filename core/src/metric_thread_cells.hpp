#pragma once
// The metrics' hot-path machinery, kept out of the public header: per-thread counter cells and a
// gauge that reads one counter minus another. Only core's executor (a lock cycle per call) needs
// them; metrics.hpp shows what applications call.

#include <shedlock/metrics.hpp>

#include <atomic>
#include <cstdint>

namespace shedlock::detail {

/// One thread's share of a metric_counter (metric_access::this_thread_cell). Only the thread that
/// obtained it increments it, so an increment is a plain load and store (~1 ns) instead of a
/// locked read-modify-write (~6 ns on the CI machine): what a hot path that counts every lock
/// cycle can afford.
class counter_thread_cell {
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

/// A gauge's value as `increments` minus `decrements` (e.g. lock_held as acquisitions minus
/// releases): a hot path then pays one integer increment of a thread cell per release instead of
/// two floating-point read-modify-writes.
struct gauge_difference {
    explicit gauge_difference(const metric_counter& up) : increments(&up) {}
    /// `increments` minus `decrements`, read as one moment (see metric_counter.cpp), never below 0.
    std::uint64_t value() const noexcept;

    std::atomic<const metric_counter*> increments;
    metric_counter decrements;
};

/// The private side of the metric types, for core's sources and the unit test.
struct metric_access {
    /// The calling thread's cell of `c`. The first call of a thread allocates a block of cells at
    /// most (lock-free); a thread that exits hands its cell index to the next thread that starts,
    /// so the cells are bounded by the threads alive at once, and no count is lost. The reference
    /// stays valid as long as the counter; keep it only in the thread that asked.
    static counter_thread_cell& this_thread_cell(metric_counter& c);
    /// From now on `g` reads `increments` minus the returned counter, and set()/add() no longer
    /// show in its value. `increments` must outlive `g` (a series of the same registry does).
    /// Asking again for the same gauge returns the same counter (two executors on one registry
    /// count into one series).
    static metric_counter& read_as_difference(metric_gauge& g, const metric_counter& increments);
    /// The histogram's bucket counters (bounds().size() + 1, the last is +Inf), for the scrape.
    static const std::atomic<std::uint64_t>* buckets(const metric_histogram& h) noexcept { return h.buckets_.get(); }
};

}  // namespace shedlock::detail
