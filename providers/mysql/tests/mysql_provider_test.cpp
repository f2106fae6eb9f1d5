// MySQL/MariaDB's URIs. What it shares with the other SQL servers (the affected-rows rule,
// schema handling, bad input, unreachable servers, clock skew) is in the shared suites,
// tests/sql_server.

#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

using shedlock::test::sql_server::error_text;

TEST_CASE("mysql URIs: every key, the mariadb alias and clear errors without the password", "[mysql][uri]") {
    auto o = providers::mysql_options::from_uri(parse_provider_uri(
        "mariadb://app:s3cret@db.example:3307/locks?table=locks&use_db_time=1&pool_size=3"
        "&connect_timeout=2s&statement_timeout=10s&create_schema=true"));
    CHECK(o.host == "db.example");
    CHECK(o.port == 3307);
    CHECK(o.database == "locks");
    CHECK(o.user == "app");
    CHECK(o.password == std::optional<std::string>{"s3cret"});
    CHECK(o.table == "locks");
    CHECK(o.use_db_time);
    CHECK(o.pool_size == 3);
    CHECK(o.connect_timeout == milliseconds{2000});
    CHECK(o.statement_timeout == milliseconds{10'000});
    CHECK(o.create_schema_if_missing);
    CHECK(o.redacted_uri() == "mysql://app:***@db.example:3307/locks");

    auto parse = [](const char* text) { return error_text([&] { providers::mysql_options::from_uri(parse_provider_uri(text)); }); };
    CHECK_THAT(parse("mysql://u:s3cret@h/db?async_unlock=true"), Contains("unknown option \"async_unlock\"") && !Contains("s3cret"));
    CHECK_THAT(parse("mysql://u:s3cret@h/db?use_db_time=maybe"), Contains("use_db_time=maybe") && !Contains("s3cret"));
    CHECK_THAT(parse("mysql://u:s3cret@[::1/db"), Contains("malformed") && !Contains("s3cret"));
    CHECK_THAT(parse("mysql://u:s3cret@h/db?table=a.b.c"), Contains("\"a.b.c\" is not a plain identifier"));
    CHECK_THAT(parse("postgresql://u:s3cret@h/db"), Contains("accepts mysql:, mariadb:") && !Contains("s3cret"));
}
