#pragma once
/// \file
/// What every SQL provider registers (see shedlock/provider_registry.hpp): the lock provider, the
/// run store and the DDL of both tables, all read from one URI. Used by the providers' own
/// registration files; applications never include it.

#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>
#include <shedlock/providers/sql/sql_idempotency_store.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>

#include <memory>
#include <string>
#include <vector>

namespace shedlock::providers::sql {

/// The lock table's DDL, then the run-record table's and the claims table's (statements
/// separated by ";").
std::string schema_text(const sql_dialect& dialect, const lock_table& locks, const table_name& runs_table,
                        const table_name& claims_table);

/// The claims table of a URI: `claims_table=` (default `shedlock_claims`), validated.
std::string claims_table_from_uri(const provider_uri& uri);

/// A registration for a dialect whose options types read URIs (`LockOptions::from_uri`,
/// `RunOptions::from_uri`): `make_lock(options, clock)`, `make_runs(options)`, `make_dialect()`,
/// `make_claims(run_options, clock)` (the run options' server, with `table` = the claims table).
/// open_request::create_schema and ::retention override what the URI says.
template <typename LockOptions, typename RunOptions, typename MakeLock, typename MakeRuns, typename MakeDialect,
          typename MakeClaims>
backend_registration sql_backend(std::string name, std::vector<std::string> schemes, MakeLock make_lock,
                                 MakeRuns make_runs, MakeDialect make_dialect, MakeClaims make_claims) {
    backend_registration backend{std::move(name), std::move(schemes), {}, {}, {}};
    backend.open_locks = [make_lock](const provider_uri& uri, const open_request& request) -> std::unique_ptr<lock_provider> {
        auto options = LockOptions::from_uri(uri);
        options.create_schema_if_missing = options.create_schema_if_missing || request.create_schema;
        return make_lock(options, request.clock ? *request.clock : system_clock::instance());
    };
    backend.open_runs = [make_runs](const provider_uri& uri, const open_request& request) -> std::unique_ptr<run_store> {
        auto options = RunOptions::from_uri(uri);
        options.create_schema_if_missing = options.create_schema_if_missing || request.create_schema;
        options.retention = request.retention;
        return make_runs(options);
    };
    backend.open_claims = [make_claims](const provider_uri& uri,
                                        const open_request& request) -> std::unique_ptr<idempotency_store> {
        auto options = RunOptions::from_uri(uri);
        options.table = claims_table_from_uri(uri);
        options.create_schema_if_missing = options.create_schema_if_missing || request.create_schema;
        return make_claims(options, request.clock ? *request.clock : system_clock::instance());
    };
    backend.schema = [make_dialect](const provider_uri& uri) {
        const auto locks = LockOptions::from_uri(uri);
        return schema_text(*make_dialect(), lock_table::with_case(table_name(locks.table), locks.columns, locks.upper_case),
                           table_name(RunOptions::from_uri(uri).table), table_name(claims_table_from_uri(uri)));
    };
    return backend;
}

}  // namespace shedlock::providers::sql
