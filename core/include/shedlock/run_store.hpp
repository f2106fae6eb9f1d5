#pragma once
/// \file
/// Run records: what happened at every firing of a scheduled task, and where they are kept.

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/time.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shedlock {

/// One firing of one task on one instance. Skips are records too: "nothing happened" must be
/// distinguishable from "never scheduled".
struct run_record {
    std::string task;
    std::string lock_name;   ///< the rendered lock name of this firing
    std::string instance;    ///< `<hostname>:<pid>` of the process that wrote it
    timestamp scheduled_at{};
    timestamp started_at{};
    timestamp finished_at{};
    run_outcome outcome = run_outcome::succeeded;
    std::optional<std::int64_t> fencing_token;
    std::string message;
    std::map<std::string, std::int64_t> counters;
    bool lock_lost = false;  ///< a keep-alive extension failed while the task ran
};

/// How many records a run store keeps.
struct run_retention {
    std::size_t max_per_task = 1000;                ///< older records of a task are dropped
    std::optional<std::chrono::milliseconds> max_age;  ///< records finished longer ago are dropped
};

/// Where run records go. Readable without a running scheduler (`shedlock runs` opens the store
/// directly).
///
/// Failure: `append` and the reads throw storage_error when the backend fails; the scheduler
/// reports an append failure to its warning sink and carries on (a lost record never stops a
/// task). Retention is applied by the store, possibly lazily (a few appends late).
///
/// Thread safety: implementations are safe for concurrent use.
class run_store {
public:
    virtual ~run_store() = default;
    /// Stores one record.
    virtual void append(const run_record& record) = 0;
    /// The newest `n` records of `task`, newest first.
    virtual std::vector<run_record> last_runs(const std::string& task, std::size_t n) = 0;
    /// The newest `n` records of `task` written by `instance` (compared byte for byte), newest
    /// first; empty when that instance wrote none. One bounded read: it looks at no more than the
    /// task's retained records (retention().max_per_task), whatever `n`.
    virtual std::vector<run_record> last_runs_of_instance(const std::string& task, const std::string& instance,
                                                          std::size_t n) = 0;
    /// Names of the tasks that have records, sorted.
    virtual std::vector<std::string> tasks() = 0;
    virtual const run_retention& retention() const noexcept = 0;
};

/// Counters as one text field: `key=value` pairs joined by ';', with '%', ';', '=' percent-escaped
/// in keys. Used by stores that keep counters in a text column.
std::string encode_counters(const std::map<std::string, std::int64_t>& counters);
/// Inverse of encode_counters; throws storage_error(invalid_data) on malformed text.
std::map<std::string, std::int64_t> decode_counters(const std::string& text);

}  // namespace shedlock
