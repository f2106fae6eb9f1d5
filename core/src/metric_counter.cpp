// metric_counter's per-thread cells (a hot path increments its own thread's cell with a plain load
// and store; value() adds them up) and the gauge that reads one counter minus another.
#include "metric_thread_cells.hpp"

#include <cstddef>
#include <utility>
#include <mutex>
#include <vector>

namespace shedlock {
namespace detail {
namespace {

/// Small indices for the threads alive now: a thread that exits gives its index back, so cells
/// are bounded by the threads alive at once (a program that starts a thread per run does not
/// grow a cell per run). The mutex orders the old thread's last increment before the new
/// thread's first: the cell's count carries over, nothing is lost.
class thread_indices {
public:
    std::size_t acquire() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) {
            free_.reserve(next_ + 1);  // release() then never allocates: it runs in a noexcept destructor
            return next_++;
        }
        const auto i = free_.back();
        free_.pop_back();
        return i;
    }
    void release(std::size_t i) {
        std::lock_guard lock(mutex_);
        free_.push_back(i);
    }

private:
    std::mutex mutex_;
    std::vector<std::size_t> free_;
    std::size_t next_ = 0;
};

thread_indices& indices() {
    static auto* instance = new thread_indices;  // never destroyed: threads may exit after statics are
    return *instance;
}

/// A thread's index, given back when the thread exits. Nothing of that thread may increment a
/// cell after (a thread_local destructor running later that counts a lock cycle would share the
/// cell with the thread that took the index over).
struct thread_index {
    std::size_t value = indices().acquire();
    thread_index() = default;
    thread_index(const thread_index&) = delete;
    thread_index& operator=(const thread_index&) = delete;
    ~thread_index() { indices().release(value); }
};

std::size_t this_thread_index() {
    thread_local thread_index index;
    return index.value;
}

}  // namespace

/// Cells [first, first + size) by thread index; blocks form a list in index order.
struct counter_cell_block {
    static constexpr std::size_t size = 8;
    explicit counter_cell_block(std::size_t first_index) : first(first_index) {}
    const std::size_t first;
    counter_thread_cell cells[size];
    std::atomic<counter_cell_block*> next{nullptr};
};

}  // namespace detail

metric_counter::~metric_counter() {
    for (auto* b = cells_.load(std::memory_order_acquire); b;) delete std::exchange(b, b->next.load());
}

std::uint64_t metric_counter::value() const noexcept {
    auto total = value_.load(std::memory_order_acquire);
    for (auto* b = cells_.load(std::memory_order_acquire); b; b = b->next.load(std::memory_order_acquire))
        for (const auto& c : b->cells) total += c.value();
    return total;
}

metric_gauge::~metric_gauge() { delete difference_.load(std::memory_order_acquire); }

double metric_gauge::value() const noexcept {
    const auto* d = difference_.load(std::memory_order_acquire);
    return d ? static_cast<double>(d->value()) : value_.load(std::memory_order_relaxed);
}

namespace detail {

counter_thread_cell& metric_access::this_thread_cell(metric_counter& c) {
    const auto index = this_thread_index();
    const auto first = index - index % counter_cell_block::size;
    std::atomic<counter_cell_block*>* link = &c.cells_;
    for (std::size_t at = 0;; at += counter_cell_block::size) {
        auto* block = link->load(std::memory_order_acquire);
        if (!block) {
            // Append the missing block; a thread that appended first wins and this one uses its.
            auto* fresh = new counter_cell_block(at);
            if (!link->compare_exchange_strong(block, fresh, std::memory_order_acq_rel)) delete fresh;
            else block = fresh;
        }
        if (block->first == first) return block->cells[index - first];
        link = &block->next;
    }
}

metric_counter& metric_access::read_as_difference(metric_gauge& g, const metric_counter& increments) {
    auto* current = g.difference_.load(std::memory_order_acquire);
    if (!current) {
        auto* fresh = new gauge_difference(increments);
        if (g.difference_.compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) return fresh->decrements;
        delete fresh;  // another thread set it first: current is now its
    }
    current->increments.store(&increments, std::memory_order_release);
    return current->decrements;
}

/// `increments` minus `decrements`, read as one moment: the two sums are read one after the other
/// while other threads go on counting, so `increments` is read again after the decrements, and the
/// pair is kept only when no increment came in between (else a lock with one holder could read 4
/// in a busy loop). Every release follows its acquisition in the thread's cells (release stores,
/// acquire loads), so a kept pair is never below 0.
std::uint64_t gauge_difference::value() const noexcept {
    const metric_counter& up = *increments.load(std::memory_order_acquire);
    auto before = up.value();
    for (int attempt = 0;; ++attempt) {
        const auto down = decrements.value();
        const auto after = up.value();
        if (after == before) return after >= down ? after - down : 0;  // the clamp only guards misuse
        if (attempt == 100) {  // a busy loop won: the decrements read after `after` err low, never high
            const auto later_down = decrements.value();
            return after >= later_down ? after - later_down : 0;
        }
        before = after;
    }
}

}  // namespace detail
}  // namespace shedlock
