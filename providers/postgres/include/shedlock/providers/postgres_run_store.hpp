#pragma once
/// \file
/// Run records in a PostgreSQL table (by default `shedlock_runs`, beside the lock table).

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>

#include <memory>

namespace shedlock::providers {

/// The run-record table and retention (sql_run_options) plus the server to reach.
struct postgres_run_options : sql::sql_run_options {
    /// Server, credentials and session timeouts. Its lock-table fields (table, use_db_time,
    /// pool_size, create_schema_if_missing, async_unlock) are not used by the run store.
    postgres_options server;

    /// Reads the lock provider's URI (every key postgres_options::from_uri accepts) plus
    /// `runs_table=` (default `shedlock_runs`); `create_schema=` applies to the run table too.
    /// Throws configuration_error naming the key; the password is never shown.
    static postgres_run_options from_uri(const provider_uri& uri);
};

/// Connects (lazily growing a pool up to `pool_size`) and checks the run-record table:
/// `{id BIGSERIAL, task, lock_name, instance, scheduled_at, started_at, finished_at
/// (TIMESTAMP(3), UTC), outcome, fencing_token, message, counters, lock_lost}` indexed by
/// (task, id). Throws storage_error: `unavailable`, `access_denied`, or `missing_schema` with
/// the DDL in the message (unless create_schema_if_missing). Messages never show the password.
std::unique_ptr<sql::sql_run_store> make_postgres_run_store(const postgres_run_options& options);

}  // namespace shedlock::providers
