#pragma once
/// \file
/// What every SQL provider registers (see shedlock/provider_registry.hpp): a session of one pool
/// for the lock provider, the run store and the idempotency store, and the DDL of their tables, all
/// read from one URI. Used by the providers' own registration files; applications never include it.

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
/// `make_claims(run_options, clock)` (the run options' server, with `table` = the claims table),
/// `connections(lock_options)` (the connection factory of the session's one pool).
/// A session opens ONE pool, sized by the lock options (`pool_size`, `pool_wait`), that its lock
/// provider, run store and idempotency store share. open_request::create_schema (every table),
/// ::create_store_schema (run records and claims) and ::retention override what the URI says.
template <typename LockOptions, typename RunOptions, typename MakeLock, typename MakeRuns, typename MakeDialect,
          typename MakeClaims, typename MakeConnections>
backend_registration sql_backend(std::string name, std::vector<std::string> schemes, MakeLock make_lock,
                                 MakeRuns make_runs, MakeDialect make_dialect, MakeClaims make_claims,
                                 MakeConnections connections) {
    backend_registration backend{std::move(name), std::move(schemes), {}, {}};
    backend.open_session = [make_lock, make_runs, make_claims, connections](const provider_uri& uri,
                                                                            const open_request& request) {
        auto locks = LockOptions::from_uri(uri);
        locks.create_schema_if_missing = locks.create_schema_if_missing || request.create_schema;
        auto runs = RunOptions::from_uri(uri);
        const bool create_stores = request.create_schema || request.create_store_schema;
        runs.create_schema_if_missing = runs.create_schema_if_missing || create_stores;
        runs.retention = request.retention;
        auto claims = RunOptions::from_uri(uri);
        claims.table = claims_table_from_uri(uri);
        claims.create_schema_if_missing = claims.create_schema_if_missing || create_stores;
        const auto pool =
            std::make_shared<connection_pool>(connections(locks), pool_settings(locks.pool_size, locks.pool_wait));
        locks.pool = runs.pool = claims.pool = pool;
        const shedlock::clock* clock = request.clock ? request.clock : &system_clock::instance();
        session_parts parts;
        parts.locks = [make_lock, locks, clock]() -> std::unique_ptr<lock_provider> { return make_lock(locks, *clock); };
        parts.runs = [make_runs, runs]() -> std::unique_ptr<run_store> { return make_runs(runs); };
        parts.claims = [make_claims, claims, clock]() -> std::unique_ptr<idempotency_store> {
            return make_claims(claims, *clock);
        };
        return parts;
    };
    backend.schema = [make_dialect](const provider_uri& uri) {
        const auto locks = LockOptions::from_uri(uri);
        return schema_text(*make_dialect(), lock_table::with_case(table_name(locks.table), locks.columns, locks.upper_case),
                           table_name(RunOptions::from_uri(uri).table), table_name(claims_table_from_uri(uri)));
    };
    return backend;
}

}  // namespace shedlock::providers::sql
