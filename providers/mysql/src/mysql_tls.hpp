#pragma once
// TLS of one MariaDB Connector/C session (private: <mysql.h> stays here).

#include "mysql_errors.hpp"

#include <shedlock/providers/sql/tls_options.hpp>

#include <mysql.h>

namespace shedlock::providers::detail {

/// The URI's ssl_mode, ssl_ca, ssl_cert and ssl_key as connector options; call before
/// mysql_real_connect. An empty mode leaves the connector's default (Connector/C 3.3: no TLS).
void apply_tls(MYSQL* db, const sql::tls_options& tls);

/// After mysql_real_connect: throws storage_error(access_denied) when the mode demands TLS and
/// the session is not encrypted. Connector/C 3.3 refuses a server without TLS before login only
/// when it checks the server's name (VERIFY_IDENTITY); for REQUIRED and VERIFY_CA it would go on
/// in plain text, so the session is checked here and dropped.
void require_tls(MYSQL* db, const sql::tls_options& tls, const mysql_error_context& context);

}  // namespace shedlock::providers::detail
