#pragma once
/// \file
/// TLS settings of a database server URI, read the same way by the PostgreSQL and MySQL/MariaDB
/// providers, each with its client library's own key names and modes.

#include <shedlock/provider_uri.hpp>

#include <string>
#include <vector>

namespace shedlock::providers::sql {

/// What a URI asked for. Empty strings: not given (the client library's default applies).
struct tls_options {
    std::string mode;       ///< one of tls_keys::modes, in that spelling
    std::string ca_file;    ///< the CA that signed the server's certificate (server verification)
    std::string cert_file;  ///< client certificate, for servers that admit users by certificate
    std::string key_file;   ///< its private key
};

/// A provider's key names and modes, e.g. PostgreSQL's {"sslmode", "sslrootcert", "sslcert",
/// "sslkey", {"disable", "allow", ...}}.
struct tls_keys {
    const char* mode;
    const char* ca;
    const char* cert;
    const char* key;
    std::vector<std::string> modes;  ///< accepted modes; the first one turns TLS off
};

/// Reads the four keys from `query`. Throws configuration_error, before any connection, naming
/// the key, the value and the fix when: the mode is not one of `keys.modes` (compared without
/// regard to case); a file cannot be read; a certificate comes without its key or the reverse;
/// files are given without a mode (the library default might not use them as the user
/// expects, e.g. PostgreSQL's `prefer` checks no certificate) or with the mode that turns TLS off.
tls_options read_tls_uri(const provider_uri& uri, uri_options& query, const tls_keys& keys);

}  // namespace shedlock::providers::sql
