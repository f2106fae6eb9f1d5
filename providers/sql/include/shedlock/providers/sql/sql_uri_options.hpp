#pragma once
/// \file
/// The provider-URI query options every SQL provider shares.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>

namespace shedlock::providers::sql {

/// Reads `table`, `columns` (the lock table's column mapping, see lock_columns::parse),
/// `upper_case`, `use_db_time`, `pool_size` and `create_schema` from `options` into `out`
/// (keys that are absent leave `out` unchanged). Also takes and validates `runs_table` (the run
/// store's table, read by read_sql_run_uri_options), so one URI opens both. Bad values throw configuration_error naming the
/// key; the caller reads its own keys and then calls `options.finish()`.
void read_sql_uri_options(uri_options& options, sql_lock_options& out);

/// For a run store opened from a lock provider's URI: `out.table` = `runs_table` (default
/// `shedlock_runs`) and `out.create_schema_if_missing` = the URI's `create_schema` (as read into
/// `lock`). Call after the lock options' from_uri, which has validated every key.
void read_sql_run_uri_options(const provider_uri& uri, const sql_lock_options& lock, sql_run_options& out);

/// Throws configuration_error unless `uri.scheme` is one of `accepted` (the message lists them).
void require_scheme(const provider_uri& uri, std::initializer_list<const char*> accepted);

}  // namespace shedlock::providers::sql
