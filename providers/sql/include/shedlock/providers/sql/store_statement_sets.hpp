#pragma once
/// \file
/// The statements of the two stores a SQL database may offer besides its locks: run records and
/// idempotency claims. A dialect hands each out as a checked set (or none, when it keeps no such
/// records); the set checks every statement's placeholders against the values its store binds
/// when it is built.

#include <shedlock/providers/sql/statement_builder.hpp>

#include <string>
#include <vector>

namespace shedlock::providers::sql {

/// The run-record table's columns in the order of the insert's parameters and of last_runs'
/// result columns (sql_run_store reads rows by this position).
inline constexpr const char* run_record_columns =
    "task, lock_name, instance, scheduled_at, started_at, finished_at, outcome, fencing_token, message, counters, "
    "lock_lost";

/// The statements of a run-record store (see sql_run_store). Parameters, in placeholder order:
/// - insert: task, lock_name, instance, scheduled_at, started_at, finished_at, outcome,
///   fencing_token (text; '' = NULL), message, counters, lock_lost (0/1)
/// - last_runs: task, limit; selects the insert's columns in that order, newest first
/// - tasks: none; SELECT DISTINCT task ... ORDER BY task
/// - prune_count: task, how many newest to keep;  prune_age: finished_at cut-off (timestamp text)
/// - probe: none; fails iff the table is missing
/// - last_runs_of_instance: task, instance, limit; as last_runs, only the instance's records (it
///   walks the (task, id) index newest first: at most the task's retained records)
struct run_statements {
    std::string insert, last_runs, tasks, prune_count, prune_age, probe, last_runs_of_instance;
};

/// The claims table's columns in the order list/find select them (sql_idempotency_store reads
/// rows by this position).
inline constexpr const char* claim_record_columns =
    "name, state, owner, fencing_token, attempt, claimed_at, expires_at, finished_at, result";

/// The statements of an idempotency store (see sql_idempotency_store): one table, `kind` 'c' for
/// claims and 'f' for fences, primary key (kind, name). Each write is ONE statement. Parameters,
/// in placeholder order (times as timestamp text, fencing_token as text, '' = NULL):
/// - claim: key, owner, fencing_token, now, expires_at. Writes iff the key is absent, failed, or
///   running with expires_at <= now (attempt + 1, result kept iff it was failed, else '');
///   returns one row (attempt, result) when it wrote, or reports affected rows (MySQL: exactly 1
///   for a new record, read as attempt 1 and result '' without a read-back; 2 for a take-over)
/// - finish: state, now, result, key, owner; affected 1 iff the key is running under owner
/// - create: key, state, now, now; inserts a record in `state` iff absent (affected 1)
/// - transition: to, key, from; affected 1 iff the state was from
/// - fence: resource, token (integer), now, now; affected > 0 iff token > the stored one or new
/// - list: none; find: key; select claim_record_columns, list sorted bytewise by name
/// - reset: key; purge: cut-off (not running, COALESCE(finished_at, claimed_at) < cut-off)
/// - probe: none; fails iff the table is missing
struct claim_statements {
    std::string claim, finish, create, transition, fence, list, find, reset, purge, probe;
};

/// A run-record store's statements and the DDL of its table (one statement per element), with
/// every statement's placeholders checked against the parameters listed at run_statements.
class run_statement_set {
public:
    /// Throws std::logic_error naming the statement whose placeholders do not match.
    run_statement_set(run_statements statements, std::vector<std::string> schema, placeholder_style style);
    const run_statements& text() const noexcept { return statements_; }
    const std::vector<std::string>& schema() const noexcept { return schema_; }

private:
    run_statements statements_;
    std::vector<std::string> schema_;
};

/// An idempotency store's statements and the DDL of its table, every statement's placeholders
/// checked against the parameters listed at claim_statements.
class claim_statement_set {
public:
    /// Throws std::logic_error naming the statement whose placeholders do not match.
    claim_statement_set(claim_statements statements, std::vector<std::string> schema, placeholder_style style);
    const claim_statements& text() const noexcept { return statements_; }
    const std::vector<std::string>& schema() const noexcept { return schema_; }

private:
    claim_statements statements_;
    std::vector<std::string> schema_;
};

}  // namespace shedlock::providers::sql
