#include "postgres_error.hpp"

#include <cstring>

namespace shedlock::providers::detail {
namespace {

/// 25006: the session may not write. A standby, or a primary being demoted in a failover: wait
/// for (or reconnect to) the primary. The statement was refused before it did anything.
constexpr const char* read_only_state = "25006";

storage_category category_of_state(const std::string& state) {
    if (state == read_only_state) return storage_category::unavailable;
    if (state == "42P05" || state == "26000") return storage_category::misconfigured;  // topology_hint says why
    if (state == "42P01" || state == "42703" || state == "3F000") return storage_category::missing_schema;
    if (state.rfind("28", 0) == 0 || state == "42501") return storage_category::access_denied;
    if (state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0) return storage_category::unavailable;
    if (state == "40001" || state == "40P01") return storage_category::conflict;  // serialization, deadlock
    if (state == "57014" || state.rfind("40", 0) == 0 || state.rfind("55P", 0) == 0) return storage_category::busy;
    return storage_category::other;
}

/// A statement the server failed: refused or rolled back (busy, conflict) is safe to run again;
/// a session that ended during it (08*, 57P*) may have committed it before the answer was lost.
retry_advice advice_of_state(const std::string& state, storage_category category, bool sent) {
    if (state == read_only_state) return retry_advice::safe;
    if (category == storage_category::unavailable) return sent ? retry_advice::in_doubt : retry_advice::safe;
    return default_retry_advice(category);
}

std::string doubt_clause(retry_advice advice) {
    return advice == retry_advice::in_doubt ? std::string("; ") + may_have_been_applied : std::string();
}

/// A named statement that exists already, or no longer: another client's, on a server connection
/// a pooler shares (pooler=none through PgBouncer's transaction pooling). A read-only server.
std::string topology_hint(const std::string& state) {
    if (state == read_only_state)
        return "; the server is read-only (a standby, or a failover under way): the URI must reach the primary";
    if (state != "42P05" && state != "26000") return {};
    return "; is a pooler (PgBouncer) in between? Use pooler=auto (the default) or pooler=pgbouncer in the URI";
}

/// A certificate was refused, or TLS was required and not offered: no retry will help.
bool is_tls_failure(const std::string& message) {
    return message.find("certificate") != std::string::npos || message.find("does not support SSL") != std::string::npos ||
           message.find("SSL error: tlsv1 alert") != std::string::npos;
}

/// A pooler refused a startup parameter it does not know (PgBouncer: libpq `options`).
bool refused_by_pooler(const std::string& message) {
    return message.find("unsupported startup parameter") != std::string::npos;
}

/// libpq's target_session_attrs=read-write passed over a server: a standby (libpq 15 says the
/// same of both) or a primary whose sessions are read-only (default_transaction_read_only).
bool read_only_session(const std::string& message) {
    return message.find("session is read-only") != std::string::npos;
}

storage_category category_of_connect_failure(const std::string& message) {
    if (is_tls_failure(message)) return storage_category::access_denied;
    if (message.find("authentication failed") != std::string::npos ||
        message.find("no password supplied") != std::string::npos ||
        message.find("no pg_hba.conf entry") != std::string::npos)
        return storage_category::access_denied;
    if (refused_by_pooler(message)) return storage_category::misconfigured;
    if (message.find("does not exist") != std::string::npos) return storage_category::other;
    return storage_category::unavailable;
}

storage_error connection_error(const std::string& message, const std::string& prefix, bool sent) {
    const auto category = category_of_connect_failure(message);
    std::string hint;
    if (category == storage_category::access_denied)
        hint = is_tls_failure(message) ? "; check sslmode, sslrootcert (the CA that signed the server's certificate), "
                                         "sslcert and sslkey"
                                       : "; check the user and password";
    if (category == storage_category::unavailable) hint = "; is the server running and reachable?";
    if (refused_by_pooler(message))
        hint = "; a connection pooler (PgBouncer) refused a startup parameter. Under pooler=none: use pooler=auto "
               "(the default) or pooler=pgbouncer, which send no libpq options; under those, the pooler refuses "
               "another parameter (its log names it)";
    if (read_only_session(message))
        hint = "; no server gave a session that can write: a standby (a failover under way: retry), or a primary "
               "whose sessions are read-only (default_transaction_read_only on for the role: ALTER ROLE ... SET "
               "default_transaction_read_only = off; target_session_attrs=primary reports that as a configuration "
               "error)";
    const auto advice = category != storage_category::unavailable ? retry_advice::permanent
                        : sent                                     ? retry_advice::in_doubt
                                                                   : retry_advice::safe;
    return storage_error(category, advice, prefix + message + hint + doubt_clause(advice));
}

}  // namespace

storage_error postgres_error(postgres_failure kind, std::string message, const std::string& sqlstate,
                             const std::string& shown, bool sent) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    const std::string prefix = "PostgreSQL " + shown + ": ";
    switch (kind) {
    case postgres_failure::refused: {
        // A WAL function on a standby: the same as a write refused there (the timeline epoch of
        // the acquire asks pg_current_wal_lsn(), which a standby refuses before any write).
        const std::string state =
            sqlstate == "55000" && message.find("recovery is in progress") != std::string::npos ? read_only_state : sqlstate;
        const auto category = category_of_state(state);
        const auto advice = advice_of_state(state, category, sent);
        return storage_error(category, advice,
                             prefix + message + (sqlstate.empty() ? "" : " [SQLSTATE " + sqlstate + "]") +
                                 topology_hint(state) + doubt_clause(advice));
    }
    case postgres_failure::connection:
        return connection_error(message, prefix, sent);
    case postgres_failure::lost: {
        const auto advice = sent ? retry_advice::in_doubt : retry_advice::safe;
        return storage_error(storage_category::unavailable, advice, prefix + message + doubt_clause(advice));
    }
    case postgres_failure::other:
        break;
    }
    return storage_error(storage_category::other, retry_advice::permanent, prefix + message);
}

bool refused_as_read_only(const std::string& sqlstate) { return sqlstate == read_only_state; }

storage_error read_only_primary(std::string message, const std::string& shown, const std::string& user) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    std::string role;  // as a quoted identifier
    for (char c : user) role += c == '"' ? std::string("\"\"") : std::string(1, c);
    return storage_error(storage_category::misconfigured, retry_advice::permanent,
                         "PostgreSQL " + shown + ": " + message +
                             "; the server is a primary (not in recovery), but this session is read-only: "
                             "default_transaction_read_only is on for the role, the database or the server. Fix: "
                             "ALTER ROLE \"" + role + "\" SET default_transaction_read_only = off (or ALTER DATABASE, "
                             "or postgresql.conf), then reconnect; if a switchover fenced this server on purpose, "
                             "the URI must reach the new primary");
}

bool cancels_synchronous_wait(const char* notice) {
    return notice && std::strstr(notice, "canceling wait for synchronous replication") != nullptr;
}

storage_error unconfirmed_commit(const std::string& shown) {
    return storage_error(storage_category::unavailable, retry_advice::in_doubt,
                         "PostgreSQL " + shown +
                             ": the server committed the statement but stopped waiting for the synchronous standby "
                             "(the wait was canceled: pg_cancel_backend or a cancel request); the standby may not have it, and a failover would lose it, so it "
                             "is not taken as done. Is the standby down or lagging? " + may_have_been_applied);
}

storage_error postgres_no_answer(const std::string& shown, std::chrono::milliseconds within) {
    return storage_error(storage_category::unavailable, retry_advice::in_doubt,
                         "PostgreSQL " + shown + ": no answer within " + postgres_seconds_text(within) +
                             " (statement_timeout + connect_timeout); the connection was closed. Is the server "
                             "stopped or overloaded, or the network silent? " + may_have_been_applied);
}

std::string postgres_seconds_text(std::chrono::milliseconds d) {
    auto text = std::to_string(d.count() / 1000);
    if (const auto ms = d.count() % 1000) text += "." + std::to_string(1000 + ms).substr(1);
    return text + " s";
}

}  // namespace shedlock::providers::detail
