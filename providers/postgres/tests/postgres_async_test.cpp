// The non-blocking PostgreSQL connection against the real server: statements, rows, the
// prepared-statement cache, refusals, connecting with a wrong password or by host name.
#include "postgres_async_helpers.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <boost/asio/io_context.hpp>

#include <unistd.h>

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
