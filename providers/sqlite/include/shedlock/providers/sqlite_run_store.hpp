#pragma once
/// \file
/// Run records in an SQLite file (the lock file itself, or another one).

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <memory>
#include <string>

namespace shedlock::providers {

struct sqlite_run_options : sql::sql_run_options {
    std::string path = "shedlock.db";
    std::chrono::milliseconds busy_timeout = std::chrono::seconds{5};
    sqlite_durability durability = sqlite_durability::normal;

    /// Reads the lock provider's URI (every key sqlite_options::from_uri accepts; the run table
    /// lives in the same file) plus `runs_table=` (default `shedlock_runs`); `create_schema=`
    /// applies to the run table too. Throws configuration_error naming the key.
    static sqlite_run_options from_uri(const provider_uri& uri);
};

/// Opens (creating if needed) the database file in WAL mode and checks the run-record table
/// (default `shedlock_runs`). Throws storage_error naming the path when the file cannot be opened,
/// or with the DDL when the table is missing and create_schema_if_missing is off. Many processes
/// may append to one file; readers (`shedlock runs`) need no running scheduler.
std::unique_ptr<sql::sql_run_store> make_sqlite_run_store(const sqlite_run_options& options);

}  // namespace shedlock::providers
