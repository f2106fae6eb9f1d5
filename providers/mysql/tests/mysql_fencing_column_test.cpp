// The fencing column of a table the provider did not create: a NULL token counts as 0, and a
// token at an INT column's maximum is a configuration error that names the column and the fix.
#include "mysql_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace my_fencing_column {

namespace test_server = shedlock::test::mysql_server;

/// `<stem>_<pid>` with ShedLock's columns and `fencing_token <type>`, one expired record "n"
/// whose token is `token` (SQL text: NULL or a number).
std::string table_with(const std::string& stem, const std::string& type, const std::string& token) {
    const std::string table = stem + "_" + std::to_string(::getpid());
    test_server::exec("DROP TABLE IF EXISTS " + table);
    test_server::exec("CREATE TABLE " + table +
                      " (name VARBINARY(256) PRIMARY KEY, lock_until DATETIME(3) NOT NULL, locked_at DATETIME(3) NOT "
                      "NULL, locked_by VARCHAR(255) NOT NULL, fencing_token " + type + ")");
    test_server::exec("INSERT INTO " + table + " VALUES ('n', UTC_TIMESTAMP(3) - INTERVAL 1 HOUR, UTC_TIMESTAMP(3) - "
                      "INTERVAL 1 HOUR, 'someone', " + token + ")");
    return table;
}

std::unique_ptr<shedlock::providers::sql::sql_lock_provider> provider_on(const std::string& table) {
    auto o = shedlock::providers::mysql_options::from_uri(shedlock::parse_provider_uri(test_server::uri()));
    o.table = table;
    return shedlock::providers::make_mysql_lock_provider(o);
}

}  // namespace my_fencing_column

TEST_CASE("mysql: a NULL fencing token counts as 0", "[mysql][fencing]") {
    const std::string table = my_fencing_column::table_with("fencing_null", "BIGINT NULL", "NULL");
    auto provider = my_fencing_column::provider_on(table);
    auto held = provider->try_lock({"n", std::chrono::minutes{5}});
    REQUIRE(held);
    CHECK(held->fencing_token() == 1);
    held->unlock();
    my_fencing_column::test_server::exec("DROP TABLE " + table);
}

TEST_CASE("mysql: a full INT fencing column is a configuration error naming the column and the fix",
          "[mysql][fencing]") {
    const std::string table = my_fencing_column::table_with("fencing_full", "INT NOT NULL DEFAULT 0", "2147483647");
    auto provider = my_fencing_column::provider_on(table);
    try {
        (void)provider->try_lock({"n", std::chrono::minutes{5}});
        FAIL("the acquisition past INT's maximum succeeded");
    } catch (const shedlock::storage_error& e) {
        CHECK(e.category() == shedlock::storage_category::misconfigured);
        CHECK(e.advice() == shedlock::retry_advice::permanent);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("`fencing_token`") && Catch::Matchers::Contains(table) &&
                                 Catch::Matchers::Contains("MODIFY `fencing_token` BIGINT"));
    }
    my_fencing_column::test_server::exec("DROP TABLE " + table);
}
