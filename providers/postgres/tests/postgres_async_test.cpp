// The non-blocking PostgreSQL connection against the real server: statements, rows, the
// prepared-statement cache, many statements on one thread, and a lock through open_async_backend.
#include "postgres_async_helpers.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include <unistd.h>

#include <atomic>
#include <deque>
#include <functional>
#include <thread>

namespace shedlock::providers {  // defined by the components; the umbrellas declare them
void register_postgres_provider(provider_registry& registry);
void register_postgres_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_test {

namespace pa = shedlock::test::postgres_async;
std::string unique(const std::string& what) { return "async_" + what + "_" + std::to_string(::getpid()); }

}  // namespace pg_async_test

// The test cases below only.
using shedlock::retry_advice;      // NOLINT
using shedlock::storage_category;  // NOLINT
namespace shedlock_providers = shedlock::providers;

TEST_CASE("postgres async: statements with parameters return rows and affected counts", "[postgres][async]") {
    boost::asio::io_context io;
    auto c = pg_async_test::pa::connect(io);
    REQUIRE(c->usable());

    const auto row = pg_async_test::pa::execute(io, *c, "SELECT $1::text, $2::bigint + 1, NULL::text",
                                                {std::string("it's"), std::int64_t{41}});
    REQUIRE_FALSE(row.failure);
    REQUIRE(row.value.rows.size() == 1);
    CHECK(row.value.rows[0][0] == std::optional<std::string>("it's"));
    CHECK(row.value.rows[0][1] == std::optional<std::string>("42"));
    CHECK_FALSE(row.value.rows[0][2].has_value());

    const std::string table = pg_async_test::unique("rows");
    REQUIRE_FALSE(pg_async_test::pa::execute(io, *c, "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table +
                                                         " (n INT PRIMARY KEY)").failure);
    const auto insert = "INSERT INTO " + table + " SELECT generate_series(1, $1::int)";
    const auto inserted = pg_async_test::pa::execute(io, *c, insert, {std::int64_t{3}});
    REQUIRE_FALSE(inserted.failure);
    CHECK(inserted.value.affected_rows == 3);
    CHECK(inserted.value.rows.empty());
    // The same text again runs the statement prepared the first time.
    const auto more = pg_async_test::pa::execute(io, *c, "DELETE FROM " + table + " WHERE n <= $1::int", {std::int64_t{2}});
    CHECK(more.value.affected_rows == 2);
    CHECK(pg_async_test::pa::execute(io, *c, "DELETE FROM " + table + " WHERE n <= $1::int", {std::int64_t{5}})
              .value.affected_rows == 1);
    const auto rows = pg_async_test::pa::execute(io, *c, "SELECT n FROM " + table + " WHERE n > $1::int ORDER BY n",
                                                 {std::int64_t{0}});
    CHECK(rows.value.rows.empty());
    CHECK_FALSE(pg_async_test::pa::execute(io, *c, "DROP TABLE " + table).failure);
    CHECK(c->usable());
}

TEST_CASE("postgres async: a refused statement fails with the blocking connection's advice and the connection stays usable",
          "[postgres][async]") {
    boost::asio::io_context io;
    auto c = pg_async_test::pa::connect(io);
    const auto missing = pg_async_test::pa::execute(io, *c, "SELECT * FROM no_such_table_async WHERE x = $1",
                                                    {std::int64_t{1}});
    CHECK(missing.error().category() == storage_category::missing_schema);
    CHECK(missing.error().advice() == retry_advice::permanent);
    CHECK_THAT(missing.error().what(), Catch::Contains("42P01"));
    CHECK(c->usable());
    const auto division = pg_async_test::pa::execute(io, *c, "SELECT 1 / $1::int", {std::int64_t{0}});
    CHECK(division.error().category() == storage_category::other);
    CHECK(pg_async_test::pa::value_of(pg_async_test::pa::execute(io, *c, "SELECT $1::int", {std::int64_t{7}})) == "7");
}

TEST_CASE("postgres async: a wrong password fails connecting as access denied", "[postgres][async]") {
    boost::asio::io_context io;
    auto o = pg_async_test::pa::options();
    o.password = "not-the-password";
    pg_async_test::pa::outcome<std::unique_ptr<pg_async_test::pa::connection>> out;
    pg_async_test::pa::start_connect(io, o, out);
    CHECK_FALSE(out.completed);  // never inside the call
    io.run();
    REQUIRE(out.completed);
    CHECK(out.error().category() == storage_category::access_denied);
    CHECK(out.error().advice() == retry_advice::permanent);
    CHECK_THAT(out.error().what(), !Catch::Contains("not-the-password"));
}

TEST_CASE("postgres async: 64 statements queued over 4 connections run on one thread", "[postgres][async]") {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<pg_async_test::pa::connection>> pool;
    for (int i = 0; i < 4; ++i) pool.push_back(pg_async_test::pa::connect(io));
    std::deque<int> queue;
    for (int i = 0; i < 64; ++i) queue.push_back(i);
    std::vector<std::string> answers(64);
    int in_flight = 0, most_in_flight = 0, failures = 0;
    std::function<void(pg_async_test::pa::connection&)> next = [&](pg_async_test::pa::connection& c) {
        if (queue.empty()) return;
        const int n = queue.front();
        queue.pop_front();
        most_in_flight = std::max(most_in_flight, ++in_flight);
        c.async_execute("SELECT $1::int * 2, pg_backend_pid()", {std::int64_t{n}}, false,
                        [&, n](std::exception_ptr e, shedlock_providers::sql::sql_result r) {
                            --in_flight;
                            if (e || r.rows.size() != 1) ++failures;
                            else answers[static_cast<std::size_t>(n)] = r.rows[0][0].value_or("NULL");
                            next(c);
                        });
    };
    for (auto& c : pool) next(*c);
    io.restart();
    io.run();
    CHECK(failures == 0);
    CHECK(most_in_flight == 4);
    for (int i = 0; i < 64; ++i) CHECK(answers[static_cast<std::size_t>(i)] == std::to_string(2 * i));
}

TEST_CASE("postgres async: locks through open_async_backend use the non-blocking driver", "[postgres][async]") {
    shedlock::provider_registry providers;
    shedlock_providers::register_postgres_provider(providers);
    shedlock::asio::async_registry drivers;
    shedlock_providers::register_postgres_async_driver(drivers);
    boost::asio::io_context io;
    const auto uri = shedlock::test::postgres_server::uri() + "?create_schema=true&table=" + pg_async_test::unique("locks");
    auto session = shedlock::asio::open_async_backend(uri, io.get_executor(), {}, providers, drivers);
    REQUIRE(session->native_locks());
    CHECK_THAT(session->locks().describe(), Catch::Contains("non-blocking libpq"));

    std::optional<shedlock::asio::lock_handle> held;
    bool second_refused = false, released = false;
    const shedlock::lock_configuration config("async-pg-lock", std::chrono::minutes(1));
    shedlock::asio::async_try_lock(session->locks(), config, [&](shedlock::asio::error_code ec, std::optional<shedlock::asio::lock_handle> h) {
        REQUIRE_FALSE(ec);
        held = std::move(h);
        shedlock::asio::async_try_lock(session->locks(), config,
                                       [&](shedlock::asio::error_code ec2, std::optional<shedlock::asio::lock_handle> h2) {
                                           second_refused = !ec2 && !h2;
                                           held->async_unlock([&](shedlock::asio::error_code ec3) { released = !ec3; });
                                       });
    });
    io.run();
    CHECK(held.has_value());
    CHECK(second_refused);
    CHECK(released);
}

TEST_CASE("postgres async: statements on strands of a two-thread io_context all complete", "[postgres][async]") {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<pg_async_test::pa::connection>> pool;
    std::vector<boost::asio::strand<boost::asio::io_context::executor_type>> strands;
    std::atomic<int> opened{0}, answered{0}, wrong{0};
    for (int i = 0; i < 4; ++i) strands.push_back(boost::asio::make_strand(io));
    pool.resize(4);
    // On each connection 16 statements one after the other, each from the previous one's completion.
    std::function<void(std::size_t, int)> run;
    run = [&](std::size_t i, int n) {
        if (n == 16) return;
        pool[i]->async_execute("SELECT $1::int + 1", {std::int64_t{n}}, false,
                               [&, i, n](std::exception_ptr e, shedlock_providers::sql::sql_result r) {
                                   if (e || r.rows.size() != 1 || r.rows[0][0] != std::to_string(n + 1)) ++wrong;
                                   ++answered;
                                   run(i, n + 1);
                               });
    };
    for (std::size_t i = 0; i < 4; ++i)
        shedlock_providers::postgres_async_connections(pg_async_test::pa::options())(
            strands[i], [&, i](std::exception_ptr e, std::unique_ptr<pg_async_test::pa::connection> c) {
                if (e) return;
                pool[i] = std::move(c);
                ++opened;
                run(i, 0);
            });
    std::thread second([&] { io.run(); });
    io.run();
    second.join();
    CHECK(opened == 4);
    CHECK(answered == 64);
    CHECK(wrong == 0);
}

TEST_CASE("postgres async: a host name is resolved off the thread and connects", "[postgres][async]") {
    boost::asio::io_context io;
    auto o = pg_async_test::pa::options();
    o.host = "localhost";
    auto c = pg_async_test::pa::connect(io, o);
    CHECK(pg_async_test::pa::value_of(pg_async_test::pa::execute(io, *c, "SELECT 1")) == "1");

    o.host = "no-such-host.invalid";
    o.connect_timeout = std::chrono::seconds(2);
    pg_async_test::pa::outcome<std::unique_ptr<pg_async_test::pa::connection>> out;
    pg_async_test::pa::start_connect(io, o, out);
    io.restart();
    io.run();
    REQUIRE(out.completed);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::safe);
}
