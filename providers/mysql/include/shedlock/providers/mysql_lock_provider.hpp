#pragma once
/// \file
/// Locks in a MySQL or MariaDB table shared by every instance that reaches the server.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace shedlock::providers {

/// Where the server is and how the provider talks to it, plus the common SQL options
/// (table, use_db_time, pool_size, create_schema_if_missing).
struct mysql_options : sql::sql_lock_options, sql::server_options {
    mysql_options() {
        port = 3306;
        database = "shedlock";
        user = "root";
    }
    // The connector counts whole seconds, rounded up (connect_timeout).
    // statement_timeout is MariaDB `max_statement_time` of every session, and the client's read/write
    // timeout (rounded up to whole seconds, plus one), so a hung server cannot block a caller forever.

    /// Reads `mysql://user:pw@host:port/db?table=..&columns=..&upper_case=..&use_db_time=..&pool_size=..&connect_timeout=..
    /// &statement_timeout=..&create_schema=..` (scheme `mariadb:` too), the password from the URI
    /// or `password_file=` / `password_env=` (see read_uri_password), and TLS: `ssl_mode=`
    /// (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY; the VERIFY modes need `ssl_ca=`),
    /// `ssl_ca=`, `ssl_cert=`, `ssl_key=` (see sql::read_tls_uri for the checks). Unknown keys and
    /// bad values are configuration_errors naming the key; the password is never shown.
    static mysql_options from_uri(const provider_uri& uri);
    /// The same connection as a URI with the password replaced by `***` (for messages).
    std::string redacted_uri() const { return server_options::redacted_uri("mysql"); }
};

/// The MySQL/MariaDB dialect: acquire is one `INSERT ... ON DUPLICATE KEY UPDATE col =
/// IF(lock_until <= now, new, col)` judged by affected rows (new row 1, taken over 2, held 0;
/// the connection never sets CLIENT_FOUND_ROWS, which would report a held row as 1), with
/// `lock_until` assigned last and the fencing token carried back by LAST_INSERT_ID(expr).
/// Times are `DATETIME(3)` in UTC (session time_zone '+00:00').
std::unique_ptr<sql::sql_dialect> make_mysql_dialect();

/// Connects (lazily growing a pool up to `pool_size`) and checks the lock table.
/// Throws storage_error: `unavailable` (server unreachable within connect_timeout),
/// `access_denied` (wrong user or password, a server certificate not accepted, or a session that
/// ssl_mode demands be encrypted and is not), `missing_schema` (the message holds the DDL).
/// Messages show the server as a URI without the password.
std::unique_ptr<sql::sql_lock_provider> make_mysql_lock_provider(const mysql_options& options,
                                                                 const shedlock::clock& clock = system_clock::instance());

/// New connections to the database `options` name: the factory of a backend session's one pool.
sql::connection_factory mysql_connections(const mysql_options& options);

}  // namespace shedlock::providers
