#pragma once
/// \file
/// Run records in a MySQL or MariaDB table (by default `shedlock_runs`, beside the lock table).

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>

#include <memory>

namespace shedlock::providers {

/// The run-record table and retention (sql_run_options) plus the server to reach.
struct mysql_run_options : sql::sql_run_options {
    /// Server, credentials and timeouts. Its lock-table fields (table, use_db_time, pool_size,
    /// create_schema_if_missing) are not used by the run store.
    mysql_options server;

    /// Reads the lock provider's URI (every key mysql_options::from_uri accepts, scheme mysql:
    /// or mariadb:) plus `runs_table=` (default `shedlock_runs`); `create_schema=` applies to
    /// the run table too. Throws configuration_error naming the key; the password is never shown.
    static mysql_run_options from_uri(const provider_uri& uri);
};

/// Connects (lazily growing a pool up to `pool_size`) and checks the run-record table:
/// `{id BIGINT AUTO_INCREMENT, task (utf8mb4_bin), lock_name, instance, scheduled_at, started_at,
/// finished_at (DATETIME(3), UTC), outcome, fencing_token, message, counters, lock_lost}` with an
/// index on (task, id). Throws storage_error: `unavailable`, `access_denied`, or
/// `missing_schema` with the DDL in the message (unless create_schema_if_missing).
std::unique_ptr<sql::sql_run_store> make_mysql_run_store(const mysql_run_options& options);

}  // namespace shedlock::providers
