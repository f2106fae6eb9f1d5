// MySQL/MariaDB URIs name one server: a host list (which the core parser keeps whole for the
// providers that take one, PostgreSQL) is a configuration error, before anything connects.
#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

TEST_CASE("mysql URIs: a host list is refused, naming it and the alternative, never the password", "[mysql][uri]") {
    try {
        (void)shedlock::providers::mysql_options::from_uri(
            shedlock::parse_provider_uri("mysql://u:list-Secret-7@db1:3306,db2:3306/app"));
        FAIL("a host list was accepted");
    } catch (const shedlock::configuration_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("\"db1:3306,db2:3306\" is a list") && Catch::Contains("one server"));
        CHECK_THAT(e.what(), !Catch::Contains("list-Secret-7"));
    }
}
