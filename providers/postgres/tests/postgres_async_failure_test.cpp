// The non-blocking PostgreSQL connection when things go wrong: a terminated session (idle: safe;
// during a statement: in doubt), a server that does not answer in time (in doubt, while the
// thread keeps serving its timers), a listener that never answers the connect.
#include "postgres_async_helpers.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <thread>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_failure_test {

namespace pa = shedlock::test::postgres_async;
namespace server = shedlock::test::postgres_server;

std::string backend_pid(boost::asio::io_context& io, pa::connection& c) {
    return pa::value_of(pa::execute(io, c, "SELECT pg_backend_pid()"));
}

/// Terminates backend `pid` from a connection of the test's own, once it runs a statement
/// (`active`) or at once; returns when the server no longer lists it.
void terminate(const std::string& pid, bool once_active) {
    pqxx::connection admin("host=" + pa::options().host + " port=" + std::to_string(pa::options().port) +
                           " dbname=" + pa::options().database + " user=" + pa::options().user +
                           " password=" + pa::options().password.value_or(""));
    pqxx::nontransaction tx(admin);
    for (int i = 0; once_active && i < 500; ++i) {
        if (tx.exec("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid = " + pid)[0][0].as<int>() > 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    tx.exec("SELECT pg_terminate_backend(" + pid + ")");
    for (int i = 0; i < 500; ++i) {
        if (tx.exec("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)[0][0].as<int>() == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace pg_async_failure_test

// The test cases below only.
using shedlock::retry_advice;      // NOLINT
using shedlock::storage_category;  // NOLINT
namespace shedlock_providers = shedlock::providers;

TEST_CASE("postgres async: a session terminated while idle fails safe before sending and a new connection works",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    auto victim = t::pa::connect(io);
    t::terminate(t::backend_pid(io, *victim), false);
    const auto out = t::pa::execute(io, *victim, "SELECT $1::int", {std::int64_t{1}});
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::safe);
    CHECK_THAT(out.error().what(), Catch::Contains("not sent"));
    CHECK_FALSE(victim->usable());
    auto fresh = t::pa::connect(io);
    CHECK(t::pa::value_of(t::pa::execute(io, *fresh, "SELECT $1::int", {std::int64_t{1}})) == "1");
}

TEST_CASE("postgres async: a session terminated during its statement fails in doubt and a new connection works",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    auto victim = t::pa::connect(io);
    const auto pid = t::backend_pid(io, *victim);
    t::pa::outcome<t::pa::sql_result> out;
    t::pa::start_execute(*victim, "SELECT pg_sleep(5)", {}, out);
    std::thread killer([pid] { t::terminate(pid, true); });
    io.restart();
    io.run();
    killer.join();
    REQUIRE(out.completed);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::in_doubt);
    CHECK_THAT(out.error().what(), Catch::Contains("57P01"));
    CHECK_FALSE(victim->usable());
    auto fresh = t::pa::connect(io);
    CHECK(t::pa::value_of(t::pa::execute(io, *fresh, "SELECT 2")) == "2");
}

TEST_CASE("postgres async: the server's statement_timeout fails safe and leaves the connection usable",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    auto c = t::pa::connect(io, t::pa::options("?statement_timeout=200ms"));
    const auto out = t::pa::execute(io, *c, "SELECT pg_sleep($1::int)", {std::int64_t{5}});
    CHECK(out.error().category() == storage_category::busy);
    CHECK(out.error().advice() == retry_advice::safe);
    CHECK_THAT(out.error().what(), Catch::Contains("57014"));
    CHECK(c->usable());
    CHECK(t::pa::value_of(t::pa::execute(io, *c, "SELECT 3")) == "3");
}

TEST_CASE("postgres async: no answer within the client deadline fails in doubt while the thread serves its timers",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    // Deadline 300 ms + 500 ms; the session's own statement_timeout is lifted so the server waits on.
    auto c = t::pa::connect(io, t::pa::options("?statement_timeout=300ms&connect_timeout=500ms"));
    REQUIRE_FALSE(t::pa::execute(io, *c, "SET statement_timeout = 0").failure);
    t::pa::outcome<t::pa::sql_result> out;
    t::pa::start_execute(*c, "SELECT pg_sleep(5)", {}, out);
    bool timer_before_answer = false;
    boost::asio::steady_timer timer(io, std::chrono::milliseconds(100));
    timer.async_wait([&](boost::system::error_code) { timer_before_answer = !out.completed; });
    io.restart();
    io.run();
    REQUIRE(out.completed);
    CHECK(timer_before_answer);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::in_doubt);
    CHECK_THAT(out.error().what(), Catch::Contains("no answer within 0.800 s"));
    CHECK_FALSE(c->usable());
}

TEST_CASE("postgres async: a listener that never answers fails the connect safe after connect_timeout",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    // Listening, never accepting: the kernel completes the TCP handshake, nobody answers libpq.
    boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    auto o = t::pa::options("?connect_timeout=300ms");
    o.port = silent.local_endpoint().port();
    t::pa::outcome<std::unique_ptr<t::pa::connection>> out;
    t::pa::start_connect(io, o, out);
    bool timer_before_failure = false;
    boost::asio::steady_timer timer(io, std::chrono::milliseconds(50));
    timer.async_wait([&](boost::system::error_code) { timer_before_failure = !out.completed; });
    io.run();
    REQUIRE(out.completed);
    CHECK(timer_before_failure);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::safe);
    CHECK_THAT(out.error().what(), Catch::Contains("connect_timeout"));
    CHECK_THAT(out.error().what(), !Catch::Contains(t::server::password));
}

TEST_CASE("postgres async: destroying a connection with a statement in flight completes it once in doubt",
          "[postgres][async]") {
    namespace t = pg_async_failure_test;
    boost::asio::io_context io;
    auto victim = t::pa::connect(io);
    int completions = 0;
    victim->async_execute("SELECT pg_sleep(10)", {}, false, [&](std::exception_ptr e, t::pa::sql_result) {
        ++completions;
        CHECK(shedlock::asio::failure_message(e).find("may have been applied") != std::string::npos);
    });
    boost::asio::steady_timer later(io, std::chrono::milliseconds(100));
    later.async_wait([&](boost::system::error_code) { victim.reset(); });
    io.restart();
    io.run();  // returns once the closed connection's statement completed, long before 10 s (the server ends the session when the sleep does)
    CHECK(completions == 1);
    auto fresh = t::pa::connect(io);
    CHECK(t::pa::value_of(t::pa::execute(io, *fresh, "SELECT 4")) == "4");
}
