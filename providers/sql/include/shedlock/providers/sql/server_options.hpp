#pragma once
/// \file
/// Where a database server is and how long to wait for it: shared by the PostgreSQL and
/// MySQL/MariaDB providers (each sets its own defaults).

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/tls_options.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace shedlock::providers::sql {

struct server_options {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    std::string database;
    std::string user;
    std::optional<std::string> password;  ///< never shown in any message
    std::chrono::milliseconds connect_timeout = std::chrono::seconds{5};
    /// Server-side limit of every statement (a blocked statement fails instead of hanging).
    std::chrono::milliseconds statement_timeout = std::chrono::seconds{5};
    /// TLS as the URI asked for it, in the provider's own mode names (read by its from_uri).
    tls_options tls;

    /// This server as `<scheme>://user:***@host:port/database` (for messages).
    std::string redacted_uri(const std::string& scheme) const;
};

/// Copies host, port, database and user from `uri` (where given), takes the password from it or
/// from `password_file` / `password_env` (see read_uri_password), and reads the
/// `connect_timeout` and `statement_timeout` query keys.
void read_server_uri(const provider_uri& uri, uri_options& query, server_options& out);

}  // namespace shedlock::providers::sql
