// Multi-host URIs (issue 24): what the parser keeps and refuses, and a blocking connection that
// passes over servers that cannot serve it (a closed port, a listener that never answers) to
// reach the one that can, within one connect_timeout.
#include "postgres_conninfo.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace pg_servers_test {

using shedlock::providers::postgres_options;
namespace test_server = shedlock::test::postgres_server;

postgres_options parsed(const std::string& uri) {
    return postgres_options::from_uri(shedlock::parse_provider_uri(uri));
}

std::string refusal_of(const std::string& uri) {
    try {
        (void)parsed(uri);
    } catch (const shedlock::configuration_error& e) {
        return e.what();
    }
    FAIL("accepted: " << uri);
    return {};
}

/// A loopback TCP socket on a free port: listening (the kernel completes handshakes, nobody
/// ever answers) or only bound (connecting is refused). Closed with the object.
class loopback_port {
public:
    explicit loopback_port(bool listening) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        if (listening) REQUIRE(::listen(fd_, 8) == 0);
        socklen_t size = sizeof address;
        REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = ntohs(address.sin_port);
    }
    ~loopback_port() { ::close(fd_); }
    loopback_port(const loopback_port&) = delete;
    loopback_port& operator=(const loopback_port&) = delete;
    std::uint16_t port() const { return port_; }
    int fd() const { return fd_; }

private:
    int fd_;
    std::uint16_t port_ = 0;
};

/// A loopback listener that, on a thread of its own, accepts each connection and writes
/// `answer` (not PostgreSQL's protocol) and closes it: a proxy with no backend, a wrong service.
class answering_port {
public:
    explicit answering_port(std::string answer) : listening_(true), answer_(std::move(answer)) {
        thread_ = std::thread([this] {
            for (;;) {
                const int client = ::accept(fd(), nullptr, nullptr);
                if (client < 0) return;  // shut down by the destructor
                if (!answer_.empty()) (void)!::write(client, answer_.data(), answer_.size());
                ::close(client);
            }
        });
    }
    ~answering_port() {
        ::shutdown(fd(), SHUT_RDWR);
        thread_.join();
    }
    answering_port(const answering_port&) = delete;
    answering_port& operator=(const answering_port&) = delete;
    std::uint16_t port() const { return listening_.port(); }

private:
    int fd() const { return listening_.fd(); }
    loopback_port listening_;
    std::string answer_;
    std::thread thread_;
};

/// The test server's URI with its host:port replaced by `servers`.
std::string with_servers(const std::string& servers, const std::string& query) {
    std::string uri = test_server::uri();
    const auto at = uri.find('@') + 1;
    const auto slash = uri.find('/', at);
    return uri.substr(0, at) + servers + uri.substr(slash, uri.find('?', slash) - slash) + query;
}

std::string test_server_address() {
    const auto o = parsed(test_server::uri());
    return o.host + ":" + std::to_string(o.port);
}

}  // namespace pg_servers_test

TEST_CASE("postgres servers: a host list is kept in order, ports default to 5432, several mean read-write", "[postgres][servers]") {
    namespace t = pg_servers_test;
    const auto o = t::parsed("postgresql://u:secret@db1:5433,db2,[::1]:5434/app");
    REQUIRE(o.servers.size() == 3);
    CHECK(o.servers[0].host == "db1");
    CHECK(o.servers[0].port == 5433);
    CHECK(o.servers[1].host == "db2");
    CHECK(o.servers[1].port == 5432);
    CHECK(o.servers[2].host == "::1");
    CHECK(o.servers[2].port == 5434);
    CHECK(o.host == "db1");
    CHECK(o.port == 5433);
    CHECK(o.target == postgres_options::session_target::read_write);
    CHECK(o.redacted_uri() == "postgresql://u:***@db1:5433,db2:5432,[::1]:5434/app");
    const auto info = shedlock::providers::detail::postgres_conninfo(o, true);
    CHECK_THAT(info, Catch::Contains("host='db1,db2,::1' port='5433,5432,5434' target_session_attrs=read-write"));
    CHECK(t::parsed("postgresql://db1/app").target == postgres_options::session_target::any);
    CHECK(t::parsed("postgresql://db1/app").servers.empty());
    CHECK(t::parsed("postgresql://a,b/app?target_session_attrs=primary").target == postgres_options::session_target::primary);
    CHECK(t::parsed("postgresql://a,b/app?target_session_attrs=any").target == postgres_options::session_target::any);
    CHECK_THAT(shedlock::providers::detail::postgres_conninfo(t::parsed("postgresql://a,b/app?target_session_attrs=any"), true),
               !Catch::Contains("target_session_attrs"));
}

TEST_CASE("postgres servers: bad lists and targets are configuration errors naming the value and the fix", "[postgres][servers]") {
    namespace t = pg_servers_test;
    CHECK_THAT(t::refusal_of("postgresql://u:secret@a,,b/db"), Catch::Contains("has no host") && !Catch::Contains("secret"));
    CHECK_THAT(t::refusal_of("postgresql://a:5432,:5433/db"), Catch::Contains("has no host"));
    CHECK_THAT(t::refusal_of("postgresql://a:0,b/db"), Catch::Contains("\"0\" is not a number from 1 to 65535"));
    CHECK_THAT(t::refusal_of("postgresql://a:99999,b/db"), Catch::Contains("\"99999\""));
    CHECK_THAT(t::refusal_of("postgresql://a:x1,b/db"), Catch::Contains("\"x1\""));
    CHECK_THAT(t::refusal_of("postgresql://a:,b/db"), Catch::Contains("empty port"));
    CHECK_THAT(t::refusal_of("postgresql://[::1,b/db"), Catch::Contains("unclosed '['"));
    CHECK_THAT(t::refusal_of("postgresql://a:5432,b,a/db"), Catch::Contains("a:5432 is given twice"));
    std::string seventeen;
    for (int i = 0; i < 17; ++i) seventeen += (i ? ",h" : "h") + std::to_string(i);
    CHECK_THAT(t::refusal_of("postgresql://" + seventeen + "/db"), Catch::Contains("more than 16 servers"));
    CHECK_NOTHROW(t::parsed("postgresql://" + seventeen.substr(0, seventeen.rfind(',')) + "/db"));
    for (const std::string standby : {"read-only", "standby", "prefer-standby"})
        CHECK_THAT(t::refusal_of("postgresql://a,b/db?target_session_attrs=" + standby),
                   Catch::Contains("target_session_attrs=\"" + standby + "\"") && Catch::Contains("a lock writes") &&
                       Catch::Contains("use target_session_attrs=read-write"));
    CHECK_THAT(t::refusal_of("postgresql://::1,b/db"), Catch::Contains("\"::1\" looks like an IPv6 address without brackets"));
    CHECK_THAT(t::refusal_of("postgresql://b,a:1:2/db"), Catch::Contains("\"a:1:2\" looks like an IPv6 address"));
    CHECK_THAT(t::refusal_of("postgresql://a,b/db?target_session_attrs=master"), Catch::Contains("not a libpq session target"));
    CHECK_THAT(t::refusal_of("postgresql://a,b/db?target_session_attrs=any&target_session_attrs=any"),
               Catch::Contains("given twice"));
}

TEST_CASE("postgres servers: a closed port and a listener that never answers are passed over to the server behind them",
          "[postgres][servers]") {
    namespace t = pg_servers_test;
    const t::loopback_port closed(false), silent(true);
    const auto uri = t::with_servers("127.0.0.1:" + std::to_string(closed.port()) + ",127.0.0.1:" +
                                         std::to_string(silent.port()) + "," + t::test_server_address(),
                                     "?connect_timeout=6s&table=servers_" + std::to_string(::getpid()) + "&create_schema=true");
    auto provider = shedlock::providers::make_postgres_lock_provider(t::parsed(uri));
    auto held = provider->try_lock({"servers", std::chrono::minutes{1}});
    REQUIRE(held);
    held->unlock();
}

TEST_CASE("postgres servers: when no server serves, the error names each one tried and why, never the password",
          "[postgres][servers]") {
    namespace t = pg_servers_test;
    const t::loopback_port closed(false), silent(true);
    const auto uri = t::with_servers("127.0.0.1:" + std::to_string(closed.port()) + ",127.0.0.1:" + std::to_string(silent.port()),
                                     "?connect_timeout=4s");
    try {
        (void)shedlock::providers::make_postgres_lock_provider(t::parsed(uri));
        FAIL("connected to nothing");
    } catch (const shedlock::storage_error& e) {
        CHECK(e.category() == shedlock::storage_category::unavailable);
        CHECK(e.advice() == shedlock::retry_advice::safe);
        CHECK_THAT(e.what(), Catch::Contains("port " + std::to_string(closed.port())) &&
                                 Catch::Contains("port " + std::to_string(silent.port())));
        CHECK_THAT(e.what(), !Catch::Contains(test_server::password));
    }
}

TEST_CASE("postgres servers: a listener that closes at once or answers garbage is passed over, not the end of the walk",
          "[postgres][servers]") {
    // libpq ends its own host-list walk at such a server (error_return, not its next host), so
    // the provider walks the list itself: each server with a conninfo of its own.
    namespace t = pg_servers_test;
    const t::answering_port closing(""), garbage("HTTP/1.1 400 Bad Request\r\n\r\n");
    const auto uri = t::with_servers("127.0.0.1:" + std::to_string(closing.port()) + ",127.0.0.1:" +
                                         std::to_string(garbage.port()) + "," + t::test_server_address(),
                                     "?connect_timeout=6s&table=servers_" + std::to_string(::getpid()) + "&create_schema=true");
    auto provider = shedlock::providers::make_postgres_lock_provider(t::parsed(uri));
    auto held = provider->try_lock({"servers", std::chrono::minutes{1}});
    REQUIRE(held);
    held->unlock();
}

TEST_CASE("postgres servers: silent servers that spend the budget at libpq's 2 s floor do not cost the connection made behind them",
          "[postgres][servers]") {
    // connect_timeout=3s over three servers is 1 s each, which libpq raises to 2 s: the two silent
    // ones take 4 s. The connection to the third was made, then thrown away by the pooler probe's
    // "budget spent" check (unavailable); it is kept, and the probe gets the floor.
    namespace t = pg_servers_test;
    const t::loopback_port silent_a(true), silent_b(true);
    const auto uri = t::with_servers("127.0.0.1:" + std::to_string(silent_a.port()) + ",127.0.0.1:" +
                                         std::to_string(silent_b.port()) + "," + t::test_server_address(),
                                     "?connect_timeout=3s&table=servers_" + std::to_string(::getpid()) + "&create_schema=true");
    auto provider = shedlock::providers::make_postgres_lock_provider(t::parsed(uri));
    auto held = provider->try_lock({"servers_floor", std::chrono::minutes{1}});
    REQUIRE(held);
    held->unlock();
}
