#pragma once
// What the SQL servers' TLS tests share: the test server's certificate files, its options with
// a TLS query, and the error a refused configuration or connection gives. The cases stay with
// each backend: their keys, modes and the servers' words differ.
#include "server_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace shedlock::test::sql_tls {

/// Where a backend's test server is (`script` starts it and sets the variables named here), and
/// its `Options` read from URIs.
template <class Options>
struct test_server {
    std::string uri_env;   ///< its URI, as the provider's user
    std::string tls_env;   ///< the folder of its certificates (scripts/tls-certs.sh)
    std::string script;

    /// `name` in the certificates' folder.
    std::string file(const std::string& name) const { return required_env(tls_env, script) + "/" + name; }

    /// `Options` for the URI in `env` (uri_env by default) plus `query`, on a table of this
    /// process created on demand.
    Options options(const std::string& query, const std::string& env = "") const {
        auto o = Options::from_uri(parse_provider_uri(required_env(env.empty() ? uri_env : env, script) + "?" + query));
        o.table = "tls_" + std::to_string(::getpid());
        o.create_schema_if_missing = true;
        return o;
    }

    /// The configuration_error's message that reading `text` gives, or "(no error)".
    static std::string uri_error(const std::string& text) {
        try {
            (void)Options::from_uri(parse_provider_uri(text));
        } catch (const configuration_error& e) {
            return e.what();
        }
        return "(no error)";
    }
};

/// The storage_error that `open` throws; fails the case when it connects instead.
inline storage_error refused(const std::function<void()>& open) {
    try {
        open();
    } catch (const storage_error& e) {
        return e;
    }
    FAIL("connected, but should have been refused");
    throw std::logic_error("unreachable");
}

}  // namespace shedlock::test::sql_tls
