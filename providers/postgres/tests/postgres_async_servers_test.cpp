// The non-blocking connect over a multi-host URI (issue 24): servers that cannot serve (a closed
// port, a listener that never answers) are passed over within one connect_timeout, a failure
// names each server tried, and a primary whose sessions are read-only is a configuration error.
#include "postgres_async_helpers.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <string>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_servers_test {

namespace pa = shedlock::test::postgres_async;
namespace server = shedlock::test::postgres_server;

/// The test server behind `ports` on loopback, in that order, in one multi-host URI's options.
shedlock::providers::postgres_options behind(const std::vector<std::uint16_t>& ports, bool with_server,
                                             const std::string& query) {
    auto o = pa::options(query);
    const shedlock::providers::postgres_options::server_address real{o.host, o.port};
    o.servers.clear();
    // The first by name: the driver resolves it (Asio) before libpq tries its addresses.
    for (auto port : ports) o.servers.push_back({o.servers.empty() ? "localhost" : "127.0.0.1", port});
    if (with_server) o.servers.push_back(real);
    o.host = o.servers.front().host;
    o.port = o.servers.front().port;
    o.target = shedlock::providers::postgres_options::session_target::read_write;
    return o;
}

/// A port nobody listens on (bound, then released: a connect is refused).
std::uint16_t closed_port(boost::asio::io_context& io) {
    boost::asio::ip::tcp::acceptor bound(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return bound.local_endpoint().port();
}

/// Accepts one connection on `acceptor` (on its io_context), writes `answer` (not PostgreSQL's
/// protocol) and closes it: a proxy with no backend, a wrong service. One only, so that io.run()
/// still runs out of work.
void answer_once(boost::asio::ip::tcp::acceptor& acceptor, std::string answer) {
    acceptor.async_accept([answer = std::move(answer)](boost::system::error_code ec, boost::asio::ip::tcp::socket peer) {
        if (ec) return;
        boost::system::error_code ignored;
        boost::asio::write(peer, boost::asio::buffer(answer), ignored);
        peer.close(ignored);
    });
}

}  // namespace pg_async_servers_test

TEST_CASE("postgres async servers: a closed port and a silent listener are passed over to the server behind them",
          "[postgres][async][servers]") {
    namespace t = pg_async_servers_test;
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto o = t::behind({t::closed_port(io), silent.local_endpoint().port()}, true, "?connect_timeout=6s");
    auto c = t::pa::connect(io, o);
    CHECK(t::pa::value_of(t::pa::execute(io, *c, "SELECT NOT pg_is_in_recovery()")) == "t");
}

TEST_CASE("postgres async servers: a listener that closes at once or answers garbage is passed over",
          "[postgres][async][servers]") {
    namespace t = pg_async_servers_test;
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor closing(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    boost::asio::ip::tcp::acceptor garbage(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    t::answer_once(closing, "");
    t::answer_once(garbage, "HTTP/1.1 400 Bad Request\r\n\r\n");
    const auto o = t::behind({closing.local_endpoint().port(), garbage.local_endpoint().port()}, true, "?connect_timeout=6s");
    auto c = t::pa::connect(io, o);
    CHECK(t::pa::value_of(t::pa::execute(io, *c, "SELECT NOT pg_is_in_recovery()")) == "t");
}

TEST_CASE("postgres async servers: when no server serves, the error names each one and why, never the password",
          "[postgres][async][servers]") {
    namespace t = pg_async_servers_test;
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto closed = t::closed_port(io);
    const auto o = t::behind({closed, silent.local_endpoint().port()}, false, "?connect_timeout=1s");
    t::pa::outcome<std::unique_ptr<t::pa::connection>> out;
    t::pa::start_connect(io, o, out);
    io.run();
    REQUIRE(out.completed);
    const auto e = out.error();
    CHECK(e.category() == shedlock::storage_category::unavailable);
    CHECK(e.advice() == shedlock::retry_advice::safe);
    CHECK_THAT(e.what(), Catch::Contains("localhost:" + std::to_string(closed) + ": ") &&
                             Catch::Contains("127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + ": "));
    CHECK_THAT(e.what(), Catch::Contains("connect_timeout"));
    CHECK_THAT(e.what(), !Catch::Contains(t::server::password));
}

// "read-only server" in the name keeps it out of the PgBouncer lanes (lanes.sh): shedlock_ro has
// no login through the poolers.
TEST_CASE("postgres async servers: a read-only server that is a primary is misconfigured at its first write, naming ALTER ROLE",
          "[postgres][async][servers]") {
    namespace t = pg_async_servers_test;
    t::server::exec("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'shedlock_ro') THEN "
                    "CREATE ROLE shedlock_ro LOGIN PASSWORD 'shedlock-test-pw'; END IF; END $$");
    t::server::exec("ALTER ROLE shedlock_ro SET default_transaction_read_only = on");
    boost::asio::io_context io;
    auto o = t::pa::options();
    o.user = "shedlock_ro";
    auto c = t::pa::connect(io, o);  // target any: the refusal comes with the first write
    const auto write = t::pa::execute(io, *c, "CREATE TABLE shedlock_ro_never (id int)");
    CHECK(write.error().category() == shedlock::storage_category::misconfigured);
    CHECK_THAT(write.error().what(), Catch::Contains("ALTER ROLE \"shedlock_ro\" SET default_transaction_read_only = off"));
    o.target = shedlock::providers::postgres_options::session_target::read_write;
    t::pa::outcome<std::unique_ptr<t::pa::connection>> out;  // read-write: libpq passes it over at connect
    t::pa::start_connect(io, o, out);
    io.restart();
    io.run();
    REQUIRE(out.completed);
    CHECK(out.error().category() == shedlock::storage_category::unavailable);  // libpq says the same of a standby
    CHECK_THAT(out.error().what(), Catch::Contains("session is read-only") && Catch::Contains("default_transaction_read_only = off"));
}
