#pragma once
// What the SQL servers' TLS tests share: the test server's certificate files, its options with
// a TLS query, the error a refused configuration or connection gives, and the URI refusals both
// backends make alike in their own key names. The cases stay with each backend: their keys,
// modes and the servers' words differ.
#include "server_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/tls_options.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace shedlock::test::sql_tls {

/// A backend's TLS words as its URIs spell them.
struct uri_words {
    providers::sql::tls_keys keys;  ///< its keys, and its modes as its errors list them (off first)
    std::string required;           ///< the mode that demands TLS without verifying: "REQUIRED"
    std::string bad_mode;           ///< a value that is no mode: "ON"
};

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

    /// Checks the refusals both backends make alike, in `w`'s words, of URIs `base` (password
    /// "s3cret", ending in "?") plus TLS keys, `pem` a readable file: a mode that is none (its
    /// message lists every mode), a CA that does not exist, a certificate without its key and
    /// the reverse, a file without a mode or with the mode that turns TLS off; and that neither
    /// these messages nor that of the backend's own `also_refused` query show the password.
    static void check_refusals(const std::string& base, const std::string& pem, const uri_words& w,
                               const std::string& also_refused) {
        using Catch::Matchers::Contains;
        const std::string mode = w.keys.mode, ca = w.keys.ca, cert = w.keys.cert, key = w.keys.key;
        std::string modes;
        for (const auto& m : w.keys.modes) modes += (modes.empty() ? "" : ", ") + m;
        CHECK_THAT(uri_error(base + mode + "=" + w.bad_mode), Contains(mode + "=" + w.bad_mode) && Contains(modes));
        CHECK_THAT(uri_error(base + mode + "=" + w.required + "&" + ca + "=/nonexistent/ca.pem"),
                   Contains(ca + "=/nonexistent/ca.pem") && Contains("No such file"));
        CHECK_THAT(uri_error(base + mode + "=" + w.required + "&" + cert + "=" + pem),
                   Contains(cert + " is given without " + key));
        CHECK_THAT(uri_error(base + mode + "=" + w.required + "&" + key + "=" + pem),
                   Contains(key + " is given without " + cert));
        CHECK_THAT(uri_error(base + ca + "=" + pem),
                   Contains("without " + mode) && Contains(mode + "=" + w.keys.modes.back()));
        CHECK_THAT(uri_error(base + mode + "=" + w.keys.modes.front() + "&" + ca + "=" + pem), Contains("turns TLS off"));
        for (const std::string& bad : {mode + "=" + w.bad_mode, ca + "=/nonexistent", also_refused})
            CHECK_THAT(uri_error(base + bad), !Contains("s3cret"));
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
