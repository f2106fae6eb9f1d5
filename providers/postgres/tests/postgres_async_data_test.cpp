// The non-blocking PostgreSQL connection with more data than one read brings: large rows and many
// rows, in the clear and over verified TLS (where OpenSSL reads record by record, so the socket
// may still hold data after libpq's read: the waits must not miss it).
#include "postgres_async_helpers.hpp"

#include <boost/asio/io_context.hpp>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_data_test {

namespace pa = shedlock::test::postgres_async;

/// Large and many rows on `c`: a 1 MB value, 20000 rows, then a small statement.
void check_large_answers(boost::asio::io_context& io, pa::connection& c) {
    const auto big = pa::execute(io, c, "SELECT repeat('x', $1::int)", {std::int64_t{1 << 20}});
    REQUIRE_FALSE(big.failure);
    CHECK(pa::value_of(big).size() == std::size_t{1} << 20);
    const auto many = pa::execute(io, c, "SELECT n, md5(n::text) FROM generate_series(1, $1::int) AS n", {std::int64_t{20000}});
    REQUIRE_FALSE(many.failure);
    REQUIRE(many.value.rows.size() == 20000);
    CHECK(many.value.rows.back().at(0) == std::optional<std::string>("20000"));
    CHECK(many.value.affected_rows == 20000);
    CHECK(pa::value_of(pa::execute(io, c, "SELECT $1::text", {std::string(100000, 'y')})).size() == 100000);
}

}  // namespace pg_async_data_test

TEST_CASE("postgres async: large and many rows arrive whole", "[postgres][async]") {
    boost::asio::io_context io;
    auto c = pg_async_data_test::pa::connect(io, pg_async_data_test::pa::options("?sslmode=disable"));
    pg_async_data_test::check_large_answers(io, *c);
}

TEST_CASE("postgres async: over verified TLS large and many rows arrive whole", "[postgres][async]") {
    const auto tls = shedlock::test::required_env("SHEDLOCK_TEST_POSTGRES_TLS_DIR", "providers/postgres/server.sh");
    boost::asio::io_context io;
    auto c = pg_async_data_test::pa::connect(
        io, pg_async_data_test::pa::options("?sslmode=verify-full&sslrootcert=" + tls + "/ca.crt"));
    CHECK(pg_async_data_test::pa::value_of(pg_async_data_test::pa::execute(
              io, *c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) == "t");
    pg_async_data_test::check_large_answers(io, *c);
}
