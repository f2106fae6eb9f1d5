#pragma once
// How a PostgreSQL failure becomes a storage_error with retry advice: one classification for the
// blocking connection (libpqxx exceptions) and the non-blocking one (libpq results), so both
// advise alike.

#include <shedlock/error.hpp>

#include <chrono>
#include <string>

namespace shedlock::providers::detail {

/// What kind of failure libpq reported.
enum class postgres_failure {
    refused,     ///< the server answered with an error (sqlstate names it)
    connection,  ///< connecting failed, or the connection broke (libpq's own message)
    lost,        ///< the outcome of a sent statement is unknown (libpqxx in_doubt_error, failure)
    other,       ///< anything else: permanent
};

/// The storage_error for `message` (libpq's text, kept whole: it never holds the password, the
/// conninfo quotes it) naming the server as `shown`. `sent`: a statement went to the server, so a
/// lost connection leaves it in doubt; before that (connecting, idle) retrying is safe.
storage_error postgres_error(postgres_failure kind, std::string message, const std::string& sqlstate,
                             const std::string& shown, bool sent);

/// The server did not answer within `within` (statement_timeout + connect_timeout) and the
/// connection was closed: unavailable, in doubt.
/// Whether a server notice says a commit stopped waiting for the synchronous standby (its wait
/// canceled by pg_cancel_backend or a cancel request; statement_timeout is off during a commit): the server committed locally and answers
/// success, but the standby may not have the commit, and a failover then would lose it.
bool cancels_synchronous_wait(const char* notice);

/// The statement's error when that happened: unavailable and in doubt (the commit exists on the
/// primary alone), so an acquisition is never reported held.
storage_error unconfirmed_commit(const std::string& shown);

storage_error postgres_no_answer(const std::string& shown, std::chrono::milliseconds within);

/// Whether `sqlstate` is 25006 (read_only_sql_transaction): a standby, or a read-only session.
bool refused_as_read_only(const std::string& sqlstate);

/// The error for 25006 from a server known not to be in recovery: the session is read-only by
/// configuration (default_transaction_read_only for `user`), which no retry or reconnect to the
/// same server mends: misconfigured, naming the setting and the ALTER ROLE that fixes it.
storage_error read_only_primary(std::string message, const std::string& shown, const std::string& user);

/// "1.5 s": a duration for messages.
std::string postgres_seconds_text(std::chrono::milliseconds d);

}  // namespace shedlock::providers::detail
