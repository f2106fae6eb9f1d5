#pragma once
// Connecting through a pooler (PgBouncer), shared by the blocking and the non-blocking
// connection: when to send libpq `options`, and the probe that tells a pooler from a server.

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <string>

namespace shedlock::providers::detail {

/// Whether a connect's first attempt carries the startup packet's `options` (DateStyle and
/// statement_timeout): not under pooler=pgbouncer.
bool sends_startup_options(const postgres_options& options);

/// Whether a connect that failed with `message` is retried without `options`: pooler=auto and
/// the refusal of a pooler that does not know the parameter (PgBouncer 1.18's defaults).
bool retries_without_startup_options(const postgres_options& options, const std::string& message);

/// The probe a new connection runs unless pooler=none: the server's backend PID and DateStyle.
/// One simple query: it runs the same on a server, through PgBouncer's transaction pooling and
/// its session pooling.
extern const char* const pooler_probe_sql;

/// Whether the connection is pooled, from the probe's row: behind a pooler the PID the
/// connection was given at startup (`reported_pid`, the cancel key PgBouncer makes up) is not the
/// server's, and nothing of `options` can be trusted to have arrived. Every probed connection
/// needs an ISO DateStyle (times are read back as text; behind a pooler the server's applies, and
/// libpq's PGDATESTYLE outranks `options`): a storage_error (other, permanent) naming the
/// setting and its fix otherwise, before any statement of the provider ran.
bool pooled_after_probe(const postgres_options& options, bool options_sent, int reported_pid,
                        const sql::sql_result& probe, const std::string& shown);

/// `failure` of the probe as the connect's error: the probe writes nothing, so a lost answer is
/// safe to retry, not in doubt; the failure's own words are kept, with the pooler's usual causes
/// (a full pool, logins to the server failing).
storage_error probe_failure(const storage_error& failure, const std::string& shown);

}  // namespace shedlock::providers::detail
