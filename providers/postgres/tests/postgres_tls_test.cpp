// PostgreSQL over TLS: the URI's sslmode, sslrootcert, sslcert and sslkey are checked before any
// connection; against the test server (TLS on, certificates made at its start by
// scripts/tls-certs.sh) a verified session is really encrypted, a wrong CA is refused,
// a client certificate admits the user that needs one; a server without TLS is refused.
#include "fake_server.hpp"
#include "postgres_connection.hpp"  // the provider's own session, so the server can be asked about it
#include "postgres_test_server.hpp"
#include "server_env.hpp"
#include "test_env.hpp"
#include "tls_support.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace test_server = shedlock::test::postgres_server;

namespace {

/// The test server, as the provider's user (or the user of another URI variable).
const test::sql_tls::test_server<postgres_options> tls_server{
    "SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_POSTGRES_TLS_DIR", "providers/postgres/server.sh"};

const test::sql_tls::uri_words tls_words{
    {"sslmode", "sslrootcert", "sslcert", "sslkey", {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}},
    "require",
    "strict"};

std::string verified(const std::string& ca) { return "sslmode=verify-full&sslrootcert=" + tls_server.file(ca); }

/// `ssl` of pg_stat_ssl for a session opened the way the provider opens its own.
std::string session_ssl(const postgres_options& o) {
    providers::detail::postgres_connection session(o);
    const auto result = session.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", {});
    return result.rows.at(0).at(0).value_or("");
}

/// The storage_error that opening a provider with `o` throws.
storage_error open_error(const postgres_options& o) {
    return test::sql_tls::refused([&] { (void)make_postgres_lock_provider(o); });
}

}  // namespace

TEST_CASE("postgres TLS URIs: keys reach libpq, and bad modes, files and combinations are refused", "[postgres][tls][uri]") {
    const std::string pem = test::scratch_dir() + "/any.pem";  // only its readability is checked here
    std::ofstream(pem) << "x";
    const std::string base = "postgresql://app:s3cret@db.example/locks?";
    auto o = postgres_options::from_uri(parse_provider_uri(base + "sslmode=VERIFY-FULL&sslrootcert=" + pem +
                                                           "&sslcert=" + pem + "&sslkey=" + pem));
    CHECK(o.tls.mode == "verify-full");
    const std::string conninfo = providers::detail::postgres_conninfo(o, true);
    CHECK_THAT(conninfo, Contains("sslmode='verify-full'") && Contains("sslrootcert='" + pem + "'") &&
                             Contains("sslcert='" + pem + "'") && Contains("sslkey='" + pem + "'"));
    CHECK_THAT(providers::detail::postgres_conninfo(postgres_options::from_uri(parse_provider_uri(base)), true), !Contains("ssl"));

    CHECK_THAT(tls_server.uri_error(base + "sslmode=require&sslrootcert=" + test::scratch_dir()), Contains("not a regular file"));
    tls_server.check_refusals(base, pem, tls_words, "sslrootcert=/etc");
}

TEST_CASE("postgres TLS: verify-full with the server's CA locks over an encrypted session", "[postgres][tls]") {
    const auto o = tls_server.options(verified("ca.crt"));
    auto provider = make_postgres_lock_provider(o);
    CHECK(provider->try_lock({"tls-verified", std::chrono::minutes{1}}));
    CHECK(session_ssl(o) == "t");
    CHECK(session_ssl(tls_server.options("sslmode=disable")) == "f");  // the same check sees a plain session
}

TEST_CASE("postgres TLS: a CA that did not sign the server's certificate is refused", "[postgres][tls]") {
    const auto e = open_error(tls_server.options(verified("other-ca.crt")));
    CHECK(e.category() == storage_category::access_denied);
    CHECK_THAT(e.what(), Contains("certificate verify failed") && Contains("check sslmode, sslrootcert") &&
                             !Contains(test_server::password));
}

TEST_CASE("postgres TLS: a user admitted by client certificate connects with it, not without", "[postgres][tls]") {
    const std::string cert = "&sslcert=" + tls_server.file("client.crt") + "&sslkey=" + tls_server.file("client.key");
    auto o = tls_server.options(verified("ca.crt") + cert, "SHEDLOCK_TEST_POSTGRES_CERT_URI");
    o.table += "_cert";  // a table of its own: shedlock_cert may not use the tables of user shedlock
    auto provider = make_postgres_lock_provider(o);
    CHECK(provider->try_lock({"tls-client-cert", std::chrono::minutes{1}}));

    const auto e = open_error(tls_server.options(verified("ca.crt"), "SHEDLOCK_TEST_POSTGRES_CERT_URI"));
    CHECK(e.category() == storage_category::access_denied);
    CHECK_THAT(e.what(), Contains("certificate"));
}

TEST_CASE("postgres TLS: sslmode=require refuses a server that offers no TLS", "[postgres][tls]") {
    // The SSLRequest (8 bytes) answered 'N': what a server without TLS, or a stripping
    // middlebox, says.
    test::fake_server plain([](int fd) {
        if (test::read_exactly(fd, 8).size() == 8) test::write_all(fd, "N");
        (void)test::read_exactly(fd, 1);  // until the client gives up
    });
    auto o = postgres_options::from_uri(parse_provider_uri("postgresql://u:" + test_server::password + "@127.0.0.1:" +
                                                           std::to_string(plain.port()) + "/db?sslmode=require"));
    const auto e = open_error(o);
    CHECK(e.category() == storage_category::access_denied);
    CHECK_THAT(e.what(), Contains("does not support SSL") && !Contains(test_server::password));
}
