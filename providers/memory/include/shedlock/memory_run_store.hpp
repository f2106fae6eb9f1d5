#pragma once
/// \file
/// Run records in process memory: a ring per task.

#include <shedlock/run_store.hpp>

#include <deque>
#include <map>
#include <mutex>

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
    std::vector<std::string> tasks() override;
    const run_retention& retention() const noexcept override { return retention_; }

    /// Every record of every task, oldest first per task (for tests and reports).
    std::vector<run_record> all();

private:
    run_retention retention_;
    std::mutex mutex_;
    std::map<std::string, std::deque<run_record>> rings_;
};

}  // namespace shedlock
