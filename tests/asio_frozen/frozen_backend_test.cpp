// Nothing blocks the executor (issue 23): ONE thread runs the io_context; the backend is frozen
// (its server SIGSTOPped, or SQLite's database held by another connection's EXCLUSIVE
// transaction); 16 lock calls wait for it, then fail with an error when the URI's timeout
// passes; meanwhile a 50 ms steady timer on the same io_context still fires on time. Were the
// thread blocked for one round trip, a tick would be late by a whole timeout (1 s or more).
// Redis, PostgreSQL and MariaDB go through their non-blocking drivers; SQLite through the pool.
#include "frozen_round.hpp"
#include "owned_server.hpp"
#include "test_env.hpp"
#include "waiting_lock_service.hpp"

#include <shedlock/asio/all_drivers.hpp>

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <cstdio>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

/// Below half of the shortest wait a blocked thread would show (a frozen server answers nothing,
/// so a blocking call waits out its whole timeout: 1 s for Redis, 3 s for the SQL servers, 1 s
/// per SQLite call; the control case measures it), far above a tick's scheduling delay on a
/// loaded two-core machine under ThreadSanitizer: an assertion that the thread never blocked,
/// not a speed bound. (Measured without sanitizer: 0.1-18 ms.)
constexpr auto lateness_bound = 400ms;

void check_round(const test::frozen_report& report, const std::string& backend) {
    const std::string summary = report.summary(backend);
    std::printf("%s\n", summary.c_str());
    INFO(summary);
    REQUIRE(report.warmed_up);
    REQUIRE(report.errors.size() == 16);  // every call completed
    CHECK(report.acquired == 0);
    CHECK(report.held_elsewhere == 0);
    for (const auto& error : report.errors) {
        INFO(error.message());
        CHECK((error == asio::errc::backend_unavailable || error == asio::errc::in_doubt));
    }
    CHECK(report.max_late < lateness_bound);
    // The ticker ran all along (one tick per 50 ms; half of them, to allow for rounding).
    CHECK(report.ticks >= static_cast<std::size_t>(report.waited / 100ms));
    CHECK(report.recovered);
}

/// A server of its own, SIGSTOPped for the round; `options` set the timeouts.
void frozen_server_case(const std::string& provider, const std::string& uri_variable, const std::string& options) {
    register_all_async_drivers();
    test::owned_server server(provider);
    boost::asio::io_context io;
    auto session = asio::open_async_backend(server.env(uri_variable) + "?" + options, io.get_executor());
    INFO(session->locks().describe());
    CHECK(session->native_locks());
    const auto report = test::frozen_round(io, session->locks(), [&] { server.freeze(); }, [&] { server.thaw(); });
    check_round(report, provider);
}

/// SQLite's database held by another connection's EXCLUSIVE transaction, for one round.
test::frozen_report sqlite_round(boost::asio::io_context& io, asio::lock_service& locks, const std::string& path,
                                 int calls) {
    sqlite3* holder = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &holder) == SQLITE_OK);
    auto exec = [&](const char* sql) { REQUIRE(sqlite3_exec(holder, sql, nullptr, nullptr, nullptr) == SQLITE_OK); };
    auto report = test::frozen_round(io, locks, [&] { exec("BEGIN EXCLUSIVE"); }, [&] { exec("ROLLBACK"); }, calls);
    sqlite3_close(holder);
    return report;
}

}  // namespace

TEST_CASE("redis: with the server stopped lock calls fail by their timeout and the io_context thread never blocks",
          "[asio][redis]") {
    frozen_server_case("redis", "SHEDLOCK_TEST_REDIS_URI", "command_timeout=1s&connect_timeout=1s");
}

TEST_CASE("postgres: with the server stopped lock calls fail by their timeout and the io_context thread never blocks",
          "[asio][postgres]") {
    frozen_server_case("postgres", "SHEDLOCK_TEST_POSTGRES_URI",
                       "statement_timeout=1s&connect_timeout=2s&create_schema=true");
}

TEST_CASE("mysql: with the server stopped lock calls fail by their timeout and the io_context thread never blocks",
          "[asio][mysql]") {
    frozen_server_case("mysql", "SHEDLOCK_TEST_MYSQL_URI", "statement_timeout=1s&connect_timeout=2s&create_schema=true");
}

TEST_CASE("sqlite: with the database held EXCLUSIVE lock calls fail busy on the pool and the io_context thread "
          "never blocks",
          "[asio][sqlite]") {
    register_all_async_drivers();
    const std::string path = test::scratch_dir() + "/frozen.db";
    boost::asio::io_context io;
    auto session = asio::open_async_backend("sqlite:" + path + "?busy_timeout=1s&create_schema=true", io.get_executor());
    INFO(session->locks().describe());
    CHECK_FALSE(session->native_locks());  // SQLite has no non-blocking client: the pool
    check_round(sqlite_round(io, session->locks(), path, 16), "sqlite");
}

// The control: the same round through a service that waits for each answer on the io_context's
// thread. The ticker must see it (each call waits out the 1 s busy_timeout), or the cases above
// would prove nothing.
TEST_CASE("control: a service that waits on the io_context thread makes the ticker late", "[asio][sqlite]") {
    register_all_async_drivers();
    const std::string path = test::scratch_dir() + "/control.db";
    boost::asio::io_context io;
    auto session = asio::open_async_backend("sqlite:" + path + "?busy_timeout=1s&create_schema=true", io.get_executor());
    test::waiting_lock_service waiting(session->locks());
    const auto report = sqlite_round(io, waiting, path, 3);
    const std::string summary = report.summary("control (waiting on the thread)");
    std::printf("%s\n", summary.c_str());
    INFO(summary);
    REQUIRE(report.errors.size() == 3);
    CHECK(report.max_late > 900ms);  // the calls waited 3 x 1 s on the ticker's thread
}
