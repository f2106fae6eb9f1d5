#pragma once
/// \file
/// Idempotency claims, states and fences in a MySQL/MariaDB table (by default `shedlock_claims`).

#include <shedlock/providers/mysql_run_store.hpp>
#include <shedlock/providers/sql/sql_idempotency_store.hpp>

#include <memory>

namespace shedlock::providers {

/// Opens the claims table `options.table` on the run store's connection settings (the URI's
/// `claims_table=`, default `shedlock_claims`, when opened by URI). Throws storage_error as
/// the run store does, `missing_schema` with the DDL unless create_schema_if_missing.
std::unique_ptr<sql::sql_idempotency_store> make_mysql_idempotency_store(
    const mysql_run_options& options, const shedlock::clock& clock = system_clock::instance());

}  // namespace shedlock::providers
