#pragma once
/// \file
/// Locks in a PostgreSQL table shared by every instance that reaches the server.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::providers {

/// Where the server is and how the provider talks to it, plus the common SQL options
/// (table, use_db_time, pool_size, create_schema_if_missing).
struct postgres_options : sql::sql_lock_options, sql::server_options {
    postgres_options() {
        port = 5432;
        database = "postgres";
        user = "postgres";
    }
    // libpq counts whole seconds and treats anything below 2 s as 2 s (connect_timeout).
    // statement_timeout is the server-side `statement_timeout` of every session.

    /// Commit unlocks asynchronously (`synchronous_commit = off` for the unlock's own transaction):
    /// one WAL flush per lock cycle instead of two. If the server crashes before the unlock
    /// reaches disk, the lock merely stays held until its `lock_until`. Acquire and extend are
    /// always synchronous.
    bool async_unlock = true;
    /// One server of a multi-host URI.
    struct server_address {
        std::string host;
        std::uint16_t port = 5432;
    };
    /// The servers of a multi-host URI (`postgresql://h1:5432,h2:5433/db`, at most 16), tried in
    /// order as libpq does until one accepts the connection and suits `target`, all within one
    /// connect_timeout. Empty when the URI names one server (`host`, `port`); otherwise `host`
    /// and `port` are the first entry's.
    std::vector<server_address> servers;
    /// Which server a connection keeps (`target_session_attrs=`, libpq's names):
    /// - `read_write` (`read-write`, the default when several servers are given): one whose
    ///   session can write; a standby, or a session made read-only, is passed over.
    /// - `primary`: one not in recovery (libpq 14+ / PostgreSQL 14+: no query at connect).
    /// - `any` (the default for one server): the first that accepts; a standby then fails every
    ///   lock call as unavailable (`shedlock doctor` warns when several servers are given).
    /// A lock writes, so libpq's `read-only`, `standby` and `prefer-standby` are refused.
    enum class session_target { any, read_write, primary };
    session_target target = session_target::any;

    /// What stands between the provider and the server (`pooler=` in the URI):
    /// - `auto` (default): connect as to a server; when the startup packet's libpq `options` are
    ///   refused ("unsupported startup parameter", PgBouncer's defaults), connect without them.
    ///   Then one probe per new connection compares the server's backend PID with the one the
    ///   connection reported: they differ behind a pooler (also one told to ignore `options`).
    /// - `none`: a server; no probe. A pooler's refusal of `options` is a configuration error.
    /// - `pgbouncer`: PgBouncer (transaction or session pooling); `options` are never sent.
    /// Statements are prepared under a name made from their text, so that clients sharing a
    /// pooler's server connection use each other's; behind a pooler each is bound first (and
    /// prepared when that server connection lacks it). The server's own DateStyle (which must
    /// be ISO: checked) and statement_timeout apply there; the client-side deadline
    /// (statement_timeout + connect_timeout) stays.
    enum class pooler_kind { auto_detect, none, pgbouncer };
    pooler_kind pooler = pooler_kind::auto_detect;

    /// Reads `postgresql://user:pw@host:port/db?table=..&columns=..&upper_case=..&use_db_time=..&pool_size=..&connect_timeout=..
    /// &statement_timeout=..&create_schema=..&async_unlock=..&pooler=auto|none|pgbouncer&target_session_attrs=read-write|primary|any
    /// &known_record_ttl=..` (sql_lock_options::known_record_ttl) (scheme `postgres:` too; several
    /// servers as `host1:port1,host2:port2`: see `servers`), the
    /// password from the URI or `password_file=` / `password_env=` (see read_uri_password), and
    /// TLS: `sslmode=` (disable, allow, prefer, require, verify-ca, verify-full), `sslrootcert=`,
    /// `sslcert=`, `sslkey=`, passed to libpq as they are (see sql::read_tls_uri for the checks).
    /// Unknown keys and bad values are configuration_errors naming the key; the password is never shown.
    static postgres_options from_uri(const provider_uri& uri);
    /// The same connection as a URI with the password replaced by `***` (for messages).
    /// Every server of a multi-host URI is shown.
    std::string redacted_uri() const;
};

/// The PostgreSQL dialect. Acquire is one statement that writes nothing when the lock is live
/// (so a refused attempt costs no WAL flush): update-if-expired, else insert-if-absent with
/// ON CONFLICT DO NOTHING, RETURNING the fencing token. Times are `TIMESTAMP(3)` in UTC.
std::unique_ptr<sql::sql_dialect> make_postgres_dialect(bool async_unlock = true);

/// Connects (lazily growing a pool up to `pool_size`) and checks the lock table.
/// Throws storage_error: `unavailable` (server unreachable within connect_timeout),
/// `access_denied` (wrong user or password, a certificate not accepted, or TLS demanded by
/// sslmode and not offered), `missing_schema` (the message holds the DDL).
/// Messages show the server as a URI without the password.
std::unique_ptr<sql::sql_lock_provider> make_postgres_lock_provider(
    const postgres_options& options, const shedlock::clock& clock = system_clock::instance());

/// New connections to the database `options` name: the factory of a backend session's one pool.
sql::connection_factory postgres_connections(const postgres_options& options);

}  // namespace shedlock::providers
