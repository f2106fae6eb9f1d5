// MySQL/MariaDB's URIs. What it shares with the other SQL servers (the affected-rows rule,
// schema handling, bad input, unreachable servers, clock skew) is in the shared suites,
// tests/sql_server.

#include "uri_checks.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using namespace shedlock::test::sql_server;
using namespace std::chrono_literals;

TEST_CASE("mysql URIs: every key, the mariadb alias and clear errors without the password", "[mysql][uri]") {
    const auto o = mysql_options::from_uri(parse_provider_uri(
        "mariadb://app:s3cret@db.example:3307/locks?table=locks&use_db_time=1&pool_size=3"
        "&connect_timeout=2s&statement_timeout=10s&create_schema=true"));
    check_uri_keys(o, {"db.example", 3307, "locks", "app", "s3cret", "locks", true, 3, 2s, 10s, true});
    CHECK(o.redacted_uri() == "mysql://app:***@db.example:3307/locks");

    check_uri_errors<mysql_options>({
        {"mysql://u:s3cret@h/db?async_unlock=true", "unknown option \"async_unlock\""},
        {"mysql://u:s3cret@h/db?use_db_time=maybe", "use_db_time=maybe"},
        {"mysql://u:s3cret@[::1/db", "malformed"},
        {"mysql://u:s3cret@h/db?table=a.b.c", "\"a.b.c\" is not a plain identifier"},
        {"postgresql://u:s3cret@h/db", "accepts mysql:, mariadb:"},
    });
}
