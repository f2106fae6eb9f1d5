#pragma once
/// \file
/// Run records in process memory: a ring per task. A generic in-process store in core (any
/// program or backend session may use it; the memory: backend offers it as its run store).

#include <shedlock/run_store.hpp>

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace shedlock {

/// Keeps the newest `retention.max_per_task` records of each task (and drops records older than
/// `retention.max_age` on append). For tests and single-instance deployments; records die with
/// the process.
///
/// Thread safety: safe for concurrent use.
class memory_run_store final : public run_store {
public:
    explicit memory_run_store(run_retention retention = {}) : retention_(retention) {}

    void append(const run_record& record) override;
    std::vector<run_record> last_runs(const std::string& task, std::size_t n) override;
    std::vector<run_record> last_runs_of_instance(const std::string& task, const std::string& instance,
                                                  std::size_t n) override;
    std::vector<std::string> tasks() override;
    const run_retention& retention() const noexcept override { return retention_; }

    /// Every record of every task, tasks by name, oldest first per task (for tests and reports).
    std::vector<run_record> all();

private:
    /// The newest `n` records of `task` that `wanted` accepts, newest first.
    std::vector<run_record> newest_matching(const std::string& task, std::size_t n,
                                            const std::function<bool(const run_record&)>& wanted);

    /// A task's records in a ring: grows to max_per_task, then each append overwrites the oldest
    /// in place (copy-assignment reuses its strings' storage: no allocation per record).
    struct ring {
        std::vector<run_record> slots;
        std::size_t oldest = 0;  ///< index of the oldest record (0 until the ring wraps)
        std::size_t size() const noexcept { return slots.size(); }
        const run_record& at(std::size_t i) const { return slots[(oldest + i) % slots.size()]; }  ///< 0 = oldest
        void push(const run_record& r, std::size_t capacity);
        void linearize();  ///< oldest first from index 0
    };

    run_retention retention_;
    std::mutex mutex_;
    std::unordered_map<std::string, ring> rings_;  // hashed: one lookup per firing; tasks() sorts
};

}  // namespace shedlock
