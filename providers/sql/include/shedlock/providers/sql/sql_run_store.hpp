#pragma once
/// \file
/// Run records in an SQL table, shared by the SQL dialects that provide run statements.

#include <shedlock/providers/sql/connection_pool.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>
#include <shedlock/run_store.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace shedlock::providers::sql {

struct sql_run_options {
    std::string table = "shedlock_runs";     ///< `[schema.]table`, validated
    bool create_schema_if_missing = false;   ///< create table and index at start-up instead of failing
    run_retention retention;
    /// Retention is applied every this many appends (per store), not on each one.
    std::size_t prune_every = 32;
    std::size_t pool_size = 2;
    std::chrono::milliseconds pool_wait = std::chrono::seconds{5};
    /// The backend session's one pool (shared with its locks); nullptr: a pool of its own.
    std::shared_ptr<connection_pool> pool = {};
};

/// A run-record table `{id, task, lock_name, instance, scheduled_at, started_at, finished_at,
/// outcome, fencing_token, message, counters, lock_lost}`, indexed by (task, id). Works without a
/// scheduler: `shedlock runs` opens it and calls last_runs().
///
/// Start-up: a missing table is a storage_error(missing_schema) whose message holds the DDL,
/// unless create_schema_if_missing. Retention keeps the newest `max_per_task` records per task
/// and drops records older than `max_age`, lazily (every `prune_every` appends).
///
/// Thread safety: safe for concurrent use; many processes may share one table.
class sql_run_store final : public run_store {
public:
    sql_run_store(std::unique_ptr<sql_dialect> dialect, connection_factory factory, sql_run_options options);

    void append(const run_record& record) override;
    std::vector<run_record> last_runs(const std::string& task, std::size_t n) override;
    std::vector<run_record> last_runs_of_instance(const std::string& task, const std::string& instance,
                                                  std::size_t n) override;
    std::vector<std::string> tasks() override;
    const run_retention& retention() const noexcept override { return options_.retention; }

    /// The DDL of this store's table in its dialect, statements separated by ";\n".
    std::string schema_sql() const;

private:
    void check_schema();
    void prune(const std::string& task);
    std::vector<run_record> select_runs(const std::string& statement, const std::vector<sql_param>& params);

    std::unique_ptr<sql_dialect> dialect_;
    sql_run_options options_;
    table_name table_;
    shared_pool pool_;
    run_statement_set set_;  ///< the dialect's run-record statements and DDL
    std::atomic<std::size_t> appends_{0};
};

}  // namespace shedlock::providers::sql
