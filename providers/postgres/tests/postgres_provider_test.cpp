// PostgreSQL's URIs. What it shares with the other SQL servers (schema handling, bad input,
// unreachable servers, clock skew) is in the shared suites, tests/sql_server.

#include "uri_checks.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using namespace shedlock::test::sql_server;
using namespace std::chrono_literals;

TEST_CASE("postgres URIs: every key, the scheme alias and clear errors without the password", "[postgres][uri]") {
    const auto o = postgres_options::from_uri(parse_provider_uri(
        "postgres://app:s3cret@db.example:6543/locks?table=ops.locks&use_db_time=true&pool_size=2"
        "&connect_timeout=3s&statement_timeout=PT0.5S&create_schema=yes&async_unlock=false"));
    check_uri_keys(o, {"db.example", 6543, "locks", "app", "s3cret", "ops.locks", true, 2, 3s, 500ms, true});
    CHECK_FALSE(o.async_unlock);
    CHECK(o.redacted_uri() == "postgresql://app:***@db.example:6543/locks");
    CHECK(postgres_options::from_uri(parse_provider_uri("postgresql://h/db")).async_unlock);

    check_uri_errors<postgres_options>({
        {"postgresql://u:s3cret@h/db?tabel=x", "unknown option \"tabel\""},
        {"postgresql://u:s3cret@h/db?pool_size=0", "pool_size=0"},
        {"postgresql://u:s3cret@h/db?connect_timeout=5", "connect_timeout"},
        {"postgresql://u:s3cret@h:99x/db", "malformed"},
        {"postgresql://u:s3cret@h/db?table=shedlock%3B%20drop%20table%20x", "\"shedlock; drop table x\" is not a plain identifier"},
        {"mysql://u:s3cret@h/db", "accepts postgresql:, postgres:"},
    });
}
