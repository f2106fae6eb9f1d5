// The non-blocking MariaDB connection when things go wrong: a killed session, a statement past
// its timeout, a server that accepts TCP and never answers. Each failure carries the retry
// advice of the blocking connection (mysql_errors.cpp) and never holds up the io_context.
#include "fake_server.hpp"
#include "mysql_async_helpers.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

namespace shedlock::test::mysql_async {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

/// A timer on the same io_context: it must fire while a statement is in flight.
struct probe {
    explicit probe(boost::asio::io_context& io, milliseconds after) : timer(io) {
        timer.expires_after(after);
        timer.async_wait([this](const boost::system::error_code& e) {
            if (!e) fired_at = steady_clock::now();
        });
    }
    boost::asio::steady_timer timer;
    std::optional<steady_clock::time_point> fired_at;
};

TEST_CASE("mysql async: KILL of an idle session fails the next statement as safe and a new connection works") {
    boost::asio::io_context io;
    auto c = connect(io);
    const std::string id = single(run(io, *c, "SELECT CONNECTION_ID()"));
    mysql_server::exec("KILL " + id);
    std::this_thread::sleep_for(milliseconds(200));  // the server's goodbye reaches the socket
    auto out = execute(io, *c, "SELECT ?", {std::int64_t{1}});
    const auto e = out.error();
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);  // checked before sending: it never reached the server
    CHECK_FALSE(c->usable());
    auto fresh = connect(io);
    CHECK(single(run(io, *fresh, "SELECT ?", {std::int64_t{2}})) == "2");
}

TEST_CASE("mysql async: KILL during a statement fails it in doubt") {
    boost::asio::io_context io;
    auto c = connect(io);
    const std::string id = single(run(io, *c, "SELECT CONNECTION_ID()"));
    outcome<sql_result> out;
    start_execute(*c, "SELECT SLEEP(?)", {std::int64_t{5}}, out);
    std::thread killer([id] {
        std::this_thread::sleep_for(milliseconds(300));
        mysql_server::exec("KILL " + id);
    });
    io.restart();
    io.run();
    killer.join();
    REQUIRE(out.completed);
    const auto e = out.error();
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::in_doubt);
    CHECK_FALSE(c->usable());
    auto fresh = connect(io);
    CHECK(single(run(io, *fresh, "SELECT 3")) == "3");
}

TEST_CASE("mysql async: the server stops a statement past statement_timeout while a timer fires") {
    boost::asio::io_context io;
    auto c = connect(io, options("statement_timeout=500ms"));
    outcome<sql_result> out;
    start_execute(*c, "SELECT SLEEP(5)", {}, out);
    probe timer(io, milliseconds(100));
    const auto started = steady_clock::now();
    io.restart();
    io.run();
    REQUIRE(out.completed);
    REQUIRE(timer.fired_at);
    const auto e = out.error();
    INFO(e.what());
    CHECK(e.category() == storage_category::busy);  // max_statement_time: rolled back, safe
    CHECK(e.advice() == retry_advice::safe);
    CHECK(steady_clock::now() - started < std::chrono::seconds(5));  // not held until the sleep ended
    CHECK(c->usable());
}

TEST_CASE("mysql async: a statement past its client deadline closes the connection in doubt while a timer fires") {
    boost::asio::io_context io;
    auto c = connect(io, options("statement_timeout=500ms"));
    run(io, *c, "SET max_statement_time = 0");  // the server no longer stops it: our deadline must
    outcome<sql_result> out;
    start_execute(*c, "SELECT SLEEP(?)", {std::int64_t{5}}, out);
    probe timer(io, milliseconds(200));
    const auto started = steady_clock::now();
    io.restart();
    io.run();
    REQUIRE(out.completed);
    REQUIRE(timer.fired_at);
    const auto e = out.error();
    INFO(e.what());
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::in_doubt);
    CHECK(std::string(e.what()).find("statement_timeout=500ms") != std::string::npos);
    CHECK(steady_clock::now() - started < std::chrono::seconds(5));
    CHECK_FALSE(c->usable());
}

TEST_CASE("mysql async: connecting to a listener that never answers fails within connect_timeout as safe") {
    std::uint16_t port = 0;
    const int listener = listen_on_loopback(port, "mysql_async_failure_test");  // never accepts, never answers
    boost::asio::io_context io;
    auto o = options("connect_timeout=700ms");
    o.host = "127.0.0.1";
    o.port = port;
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    probe timer(io, milliseconds(100));
    const auto started = steady_clock::now();
    io.run();
    ::close(listener);
    REQUIRE(out.completed);
    REQUIRE(timer.fired_at);
    const auto e = out.error();
    INFO(e.what());
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);
    CHECK(std::string(e.what()).find("connect_timeout=700ms") != std::string::npos);
    CHECK(steady_clock::now() - started < std::chrono::seconds(30));  // bounded, not the OS's TCP timeout
    CHECK_FALSE(out.value);
}

TEST_CASE("mysql async: connecting to a closed port fails as safe") {
    std::uint16_t port = 0;
    ::close(listen_on_loopback(port, "mysql_async_failure_test"));  // nothing listens there now
    boost::asio::io_context io;
    auto o = options();
    o.host = "127.0.0.1";
    o.port = port;
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    io.run();
    REQUIRE(out.completed);
    const auto e = out.error();
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);
}

TEST_CASE("mysql async: destroying a connection with a statement in flight completes it in doubt without waiting") {
    boost::asio::io_context io;
    auto c = connect(io);
    const std::string id = single(run(io, *c, "SELECT CONNECTION_ID()"));
    outcome<sql_result> out;
    start_execute(*c, "SELECT SLEEP(?)", {std::int64_t{30}}, out);
    boost::asio::steady_timer later(io, milliseconds(200));
    later.async_wait([&c](const boost::system::error_code&) { c.reset(); });
    const auto started = steady_clock::now();
    io.restart();
    io.run();  // returns: nothing of the closed connection is left waiting
    CHECK(steady_clock::now() - started < std::chrono::seconds(30));
    REQUIRE(out.completed);  // exactly once, queued
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::in_doubt);
    auto fresh = connect(io);
    CHECK(single(run(io, *fresh, "SELECT ?", {std::int64_t{4}})) == "4");
    // The server ends the closed session (its socket is gone) instead of keeping it. A sleeping
    // statement looks at its client's socket every 5 s of the sleep (MariaDB's interruptible
    // wait), so the first look may come 5 s after the statement started: waiting 5 s from here
    // lost that race under load (CI); 15 s covers two looks.
    bool gone = false;
    for (int i = 0; i < 150 && !gone; ++i) {
        gone = mysql_server::first_column("SELECT ID FROM information_schema.PROCESSLIST WHERE ID = " + id).empty();
        if (!gone) std::this_thread::sleep_for(milliseconds(100));
    }
    CHECK(gone);
}

/// This machine's name when it resolves to the loopback address the test server listens on.
std::optional<std::string> loopback_host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return std::nullopt;
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    boost::system::error_code ec;
    for (const auto& entry : resolver.resolve(name, "", ec))
        if (entry.endpoint().address().to_string() == "127.0.0.1") return std::string(name);
    return std::nullopt;
}

TEST_CASE("mysql async: a host name is resolved without the connector and a name that does not resolve fails as safe") {
    boost::asio::io_context io;
    auto o = options();
    o.host = "no-such-host.invalid";
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    io.run();
    REQUIRE(out.completed);
    const auto e = out.error();
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);
    CHECK_THAT(e.what(), Catch::Contains("cannot resolve host \"no-such-host.invalid\""));
    if (const auto name = loopback_host_name()) {  // where the machine's name is 127.0.0.1 (in /etc/hosts)
        o.host = *name;
        auto c = connect(io, o);
        CHECK(single(run(io, *c, "SELECT ?", {std::int64_t{6}})) == "6");
    }
}

}  // namespace
}  // namespace shedlock::test::mysql_async
