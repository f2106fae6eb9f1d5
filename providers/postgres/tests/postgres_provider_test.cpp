// PostgreSQL's URIs. What it shares with the other SQL servers (schema handling, bad input,
// unreachable servers, clock skew) is in the shared suites, tests/sql_server.

#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

using shedlock::test::sql_server::error_text;

TEST_CASE("postgres URIs: every key, the scheme alias and clear errors without the password", "[postgres][uri]") {
    auto o = postgres_options::from_uri(parse_provider_uri(
        "postgres://app:s3cret@db.example:6543/locks?table=ops.locks&use_db_time=true&pool_size=2"
        "&connect_timeout=3s&statement_timeout=PT0.5S&create_schema=yes&async_unlock=false"));
    CHECK(o.host == "db.example");
    CHECK(o.port == 6543);
    CHECK(o.database == "locks");
    CHECK(o.user == "app");
    CHECK(o.password == std::optional<std::string>{"s3cret"});
    CHECK(o.table == "ops.locks");
    CHECK(o.use_db_time);
    CHECK(o.pool_size == 2);
    CHECK(o.connect_timeout == milliseconds{3000});
    CHECK(o.statement_timeout == milliseconds{500});
    CHECK(o.create_schema_if_missing);
    CHECK_FALSE(o.async_unlock);
    CHECK(o.redacted_uri() == "postgresql://app:***@db.example:6543/locks");
    CHECK(postgres_options::from_uri(parse_provider_uri("postgresql://h/db")).async_unlock);

    auto parse = [](const char* text) { return error_text([&] { postgres_options::from_uri(parse_provider_uri(text)); }); };
    CHECK_THAT(parse("postgresql://u:s3cret@h/db?tabel=x"), Contains("unknown option \"tabel\"") && !Contains("s3cret"));
    CHECK_THAT(parse("postgresql://u:s3cret@h/db?pool_size=0"), Contains("pool_size=0") && !Contains("s3cret"));
    CHECK_THAT(parse("postgresql://u:s3cret@h/db?connect_timeout=5"), Contains("connect_timeout") && !Contains("s3cret"));
    CHECK_THAT(parse("postgresql://u:s3cret@h:99x/db"), Contains("malformed") && !Contains("s3cret"));
    CHECK_THAT(parse("postgresql://u:s3cret@h/db?table=shedlock%3B%20drop%20table%20x"),
               Contains("\"shedlock; drop table x\" is not a plain identifier") && !Contains("s3cret"));
    CHECK_THAT(parse("mysql://u:s3cret@h/db"), Contains("accepts postgresql:, postgres:") && !Contains("s3cret"));
}
