// MySQL/MariaDB over TLS: the URI's ssl_mode, ssl_ca, ssl_cert and ssl_key are checked before
// any connection; against the test server (TLS on, certificates made at its start by
// scripts/tls-certs.sh) a verified session is really encrypted, a wrong CA is refused, a
// client certificate admits the user that needs one; a server without TLS is refused by every
// mode that demands TLS (Connector/C 3.3 itself refuses it only for VERIFY_IDENTITY).
#include "fake_server.hpp"
#include "mysql_connection.hpp"  // the provider's own session, so the server can be asked about it
#include "mysql_test_server.hpp"
#include "server_env.hpp"
#include "test_env.hpp"
#include "tls_support.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace test_server = shedlock::test::mysql_server;

namespace {

/// The test server, as the provider's user (or the user of another URI variable).
const test::sql_tls::test_server<providers::mysql_options> tls_server{
    "SHEDLOCK_TEST_MYSQL_URI", "SHEDLOCK_TEST_MARIADB_TLS_DIR", "providers/mysql/server.sh"};

const test::sql_tls::uri_words tls_words{
    {"ssl_mode", "ssl_ca", "ssl_cert", "ssl_key", {"DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"}},
    "REQUIRED",
    "ON"};

std::string verified(const std::string& mode, const std::string& ca) {
    return "ssl_mode=" + mode + "&ssl_ca=" + tls_server.file(ca);
}

/// The session's Ssl_cipher ("" when not encrypted), asked on a session opened the way the
/// provider opens its own.
std::string session_cipher(const providers::mysql_options& o) {
    providers::detail::mysql_connection session(o);
    const auto result = session.execute("SHOW STATUS LIKE 'Ssl_cipher'", {});
    return result.rows.at(0).at(1).value_or("");
}

/// The storage_error that connecting with `o` throws.
storage_error connect_error(const providers::mysql_options& o) {
    return test::sql_tls::refused([&] { providers::detail::mysql_connection session(o); });
}

std::string packet(std::uint8_t sequence, const std::string& payload) {
    const auto n = payload.size();
    return std::string{static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff), static_cast<char>((n >> 16) & 0xff),
                       static_cast<char>(sequence)} + payload;
}

/// A MariaDB handshake without CLIENT_SSL (no TLS offered), which then accepts any login and
/// answers every command with OK: a server without TLS, or a middlebox that strips it.
void plain_mysql_session(int fd) {
    const std::uint32_t caps = 0x1 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;  // no 0x800 (SSL)
    std::string greeting = "\x0a" + std::string("5.5.5-10.11.0-MariaDB-fake") + '\0' + std::string("\x01\0\0\0", 4) +
                           "abcdefgh" + '\0';
    greeting += {static_cast<char>(caps & 0xff), static_cast<char>((caps >> 8) & 0xff), '\x21', '\x02', '\0',
                 static_cast<char>((caps >> 16) & 0xff), static_cast<char>(caps >> 24), char{21}};
    greeting += std::string(10, '\0') + "ijklmnopqrst" + '\0' + "mysql_native_password" + '\0';
    if (!test::write_all(fd, packet(0, greeting))) return;
    const std::string ok("\x00\x00\x00\x02\x00\x00\x00", 7);
    while (true) {
        const std::string header = test::read_exactly(fd, 4);
        if (header.empty()) return;
        const std::size_t n = static_cast<unsigned char>(header[0]) | static_cast<unsigned char>(header[1]) << 8 |
                              static_cast<unsigned char>(header[2]) << 16;
        const std::string body = test::read_exactly(fd, n);
        if (body.empty() || body[0] == '\x01') return;  // gone, or COM_QUIT
        if (!test::write_all(fd, packet(static_cast<std::uint8_t>(header[3] + 1), ok))) return;
    }
}

}  // namespace

TEST_CASE("mysql TLS URIs: modes, files and combinations are checked before connecting", "[mysql][tls][uri]") {
    const std::string pem = test::scratch_dir() + "/any.pem";  // only its readability is checked here
    std::ofstream(pem) << "x";
    const std::string base = "mysql://app:s3cret@db.example/locks?";
    auto o = providers::mysql_options::from_uri(parse_provider_uri(base + "ssl_mode=verify_identity&ssl_ca=" + pem +
                                                        "&ssl_cert=" + pem + "&ssl_key=" + pem));
    CHECK(o.tls.mode == "VERIFY_IDENTITY");
    CHECK(o.tls.ca_file == pem);
    CHECK(o.tls.cert_file == pem);
    CHECK(o.tls.key_file == pem);
    CHECK(providers::mysql_options::from_uri(parse_provider_uri(base + "ssl_mode=REQUIRED")).tls.mode == "REQUIRED");

    CHECK_THAT(tls_server.uri_error(base + "ssl_mode=VERIFY_CA"), Contains("ssl_mode=VERIFY_CA needs ssl_ca="));
    tls_server.check_refusals(base, pem, tls_words, "ssl_mode=VERIFY_CA");
}

TEST_CASE("mysql TLS: VERIFY_IDENTITY with the server's CA locks over an encrypted session", "[mysql][tls]") {
    const auto o = tls_server.options(verified("VERIFY_IDENTITY", "ca.crt"));
    auto provider = make_mysql_lock_provider(o);
    CHECK(provider->try_lock({"tls-verified", std::chrono::minutes{1}}));
    CHECK_FALSE(session_cipher(o).empty());
    for (const char* mode : {"PREFERRED", "REQUIRED"}) {
        INFO(mode);
        CHECK_FALSE(session_cipher(tls_server.options(std::string("ssl_mode=") + mode)).empty());
    }
    CHECK_FALSE(session_cipher(tls_server.options(verified("VERIFY_CA", "ca.crt"))).empty());
    CHECK(session_cipher(tls_server.options("ssl_mode=DISABLED")).empty());  // the same check sees a plain session
}

TEST_CASE("mysql TLS: a CA that did not sign the server's certificate is refused", "[mysql][tls]") {
    for (const char* mode : {"VERIFY_CA", "VERIFY_IDENTITY"}) {
        INFO(mode);
        const auto e = connect_error(tls_server.options(verified(mode, "other-ca.crt")));
        CHECK(e.category() == storage_category::access_denied);
        CHECK_THAT(e.what(), Contains("check ssl_mode, ssl_ca") && !Contains(test_server::password));
    }
}

TEST_CASE("mysql TLS: a user admitted by client certificate connects with it, not without", "[mysql][tls]") {
    const std::string cert = "&ssl_cert=" + tls_server.file("client.crt") + "&ssl_key=" + tls_server.file("client.key");
    const auto with_cert = tls_server.options(verified("VERIFY_IDENTITY", "ca.crt") + cert, "SHEDLOCK_TEST_MYSQL_CERT_URI");
    auto provider = make_mysql_lock_provider(with_cert);
    CHECK(provider->try_lock({"tls-client-cert", std::chrono::minutes{1}}));

    const auto e = connect_error(tls_server.options(verified("VERIFY_IDENTITY", "ca.crt"), "SHEDLOCK_TEST_MYSQL_CERT_URI"));
    CHECK(e.category() == storage_category::access_denied);
}

TEST_CASE("mysql TLS: every mode that demands TLS refuses a server that offers none", "[mysql][tls]") {
    test::fake_server plain(plain_mysql_session);
    const std::string uri = "mysql://u:" + test_server::password + "@127.0.0.1:" + std::to_string(plain.port()) + "/db?connect_timeout=2s&";
    const auto at = [&](const std::string& query) { return providers::mysql_options::from_uri(parse_provider_uri(uri + query)); };
    CHECK_NOTHROW(providers::detail::mysql_connection(at("ssl_mode=PREFERRED")));  // the fake does let a client in
    for (const std::string mode : {"REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"}) {
        INFO(mode);
        const auto e = connect_error(at(mode == "REQUIRED" ? "ssl_mode=REQUIRED" : verified(mode, "ca.crt")));
        CHECK(e.category() == storage_category::access_denied);
        CHECK_THAT(e.what(), !Contains(test_server::password));
    }
}
