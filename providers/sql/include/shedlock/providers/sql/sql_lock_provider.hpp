#pragma once
/// \file
/// The lock provider shared by every SQL database; dialects supply the statements.

#include <shedlock/lock_provider.hpp>
#include <shedlock/providers/sql/connection_pool.hpp>
#include <shedlock/providers/sql/known_lock_names.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/lock_statement_set.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>

#include <memory>
#include <optional>
#include <string>

namespace shedlock::providers::sql {

/// Options common to every SQL provider.
struct sql_lock_options {
    std::string table = "shedlock";          ///< `[schema.]table`, validated
    lock_columns columns;                    ///< the table's column names (ShedLock's by default)
    /// Table and column names upper-cased and quoted exactly (ShedLock's withDbUpperCase).
    bool upper_case = false;
    bool use_db_time = false;                ///< "now" is the database server's clock
    bool create_schema_if_missing = false;   ///< create the table at start-up instead of failing
    std::size_t pool_size = 4;
    std::chrono::milliseconds pool_wait = std::chrono::seconds{5};
    /// How long a lock's record, once seen, is trusted to exist (known_lock_names): within it a
    /// refused acquisition is one plain UPDATE (where the dialect has one: PostgreSQL), after it
    /// the next attempt runs the full insert-or-take-over statement. It bounds how long a record
    /// that another process deleted keeps being refused here. Zero: always the full statement.
    /// 10 minutes: well above the commonest task period (every minute), so a fleet's refusals are
    /// plain UPDATEs (1 in 10 a full statement), while a record deleted by hand elsewhere is
    /// refused here for minutes, not forever (Java ShedLock's cache never forgets).
    std::chrono::milliseconds known_record_ttl = std::chrono::minutes{10};
    /// The backend session's one pool, shared with its run store and idempotency store; nullptr
    /// (an application constructing the provider itself): a pool of its own.
    std::shared_ptr<connection_pool> pool;
};

/// A lock table in an SQL database (see ARCHITECTURE §3): one statement per operation, values
/// always bound, times at millisecond precision in UTC.
///
/// Start-up: the constructor connects and checks the table with one catalog query. A missing
/// table is a storage_error(missing_schema) whose message contains the DDL to run, unless
/// `create_schema_if_missing`; so is a mapped column that is missing or cannot play its role
/// (see check_lock_columns: name a text primary key, times timestamps, fencing_token an
/// integer). A table without ShedLock's default `fencing_token` column works; supports_fencing()
/// is then false and fencing_token() of every handle is empty.
///
/// Thread safety: safe for concurrent use; connections come from a pool.
class sql_lock_provider : public lock_provider, public lock_inspector {
public:
    sql_lock_provider(std::unique_ptr<sql_dialect> dialect, connection_factory factory, sql_lock_options options,
                      const shedlock::clock& clock = system_clock::instance());

    bool supports_fencing() const override { return fencing_; }
    lock_inspector* inspector() noexcept override { return this; }

    std::vector<lock_record> list_locks() override;
    void delete_records(const std::vector<std::string>& names) override;
    std::size_t delete_expired_records(const std::vector<std::string>& names, timestamp expired_by) override;

    /// The DDL of this provider's table in its dialect.
    std::string schema_sql() const { return dialect_->schema_sql(table_); }
    const sql_dialect& dialect() const noexcept { return *dialect_; }
    /// The table with its mapped column names, as every statement uses it.
    const lock_table& table() const noexcept { return table_; }
    std::string record_table() const override { return table_.table().qualified(); }
    /// The database server's current time (for clock-offset checks).
    timestamp server_now();
    std::optional<timestamp> server_time() override { return server_now(); }
    timestamp lock_time_now() override;
    /// The connection's notes (sql_connection::topology), and a fencing column too narrow for
    /// the dialect's epoch (statement_options::wide_fencing).
    std::vector<topology_note> topology() override;
    /// The statements this provider runs (for the asynchronous SQL lock service on its table).
    lock_statement_set statements() const;
    /// The lock records this provider saw (shared with the asynchronous SQL lock service).
    const std::shared_ptr<known_lock_names>& known_names() const noexcept { return known_; }
    /// How an acquire's failure says the fencing column is full, and what to do about it.
    fencing_overflow fencing_overflow_advice() const;

private:
    void do_force_release(const lock_record& live, timestamp now) override { release_record(live, now); }
    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;

    /// Describes the table and judges its columns (check_lock_columns); sets fencing_ and wide_fencing_.
    void check_schema();
    /// What a missing table may also mean: the table or its columns go by other names.
    std::string missing_table_hint() const;
    /// The table's user columns; empty when there is no such table.
    std::vector<described_column> describe_table();
    statement_options statement_options_() const { return {fencing_, options_.use_db_time, false, wide_fencing_}; }

    std::unique_ptr<sql_dialect> dialect_;
    sql_lock_options options_;
    lock_table table_;
    shared_pool pool_;
    bool fencing_ = true;
    bool wide_fencing_ = false;  // the fencing column holds 64 bits (statement_options::wide_fencing)
    statement acquire_, unlock_, extend_;
    std::optional<statement> acquire_existing_;  ///< the plain UPDATE for a record known to exist
    std::shared_ptr<known_lock_names> known_;
    statement unlock_past_lease_;  ///< the uncapped release, for a minimum hold that outlasts its lease
};

}  // namespace shedlock::providers::sql
