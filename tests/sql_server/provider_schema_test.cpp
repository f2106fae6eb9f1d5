// The lock table at start-up, on every SQL server backend: a missing table's DDL, creating it
// (also qualified, also by 8 instances at once), Java ShedLock's own table, a bad table name.
// Every case uses its own table.
#include "sql_server_suite.hpp"
#include "startup_race.hpp"

#include <shedlock/error.hpp>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

SQL_SERVER_CASE("{name}: a missing table is a start-up error that prints the DDL", "") {
    const auto& b = backend();
    auto o = options_for("missing");
    try {
        (void)make_provider(o);
        FAIL("no error for a missing table");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::missing_schema);
        CHECK_THAT(e.what(), Contains("does not exist") && Contains("CREATE TABLE IF NOT EXISTS " + b.quote(o.table)) &&
                                 Contains(b.lock_until_ddl) && Contains(b.quote("fencing_token") + " BIGINT") &&
                                 !Contains(b.password));
    }
}

SQL_SERVER_CASE("{name}: create_schema_if_missing creates a {qualified_by}-qualified table", "") {
    auto o = options_for("created");
    o.table = backend().table_qualifier(o) + "." + o.table;
    backend().exec("DROP TABLE IF EXISTS " + o.table);
    o.create_schema_if_missing = true;
    auto provider = make_provider(o);
    CHECK(provider->supports_fencing());
    auto held = provider->try_lock({"created", milliseconds{60'000}});
    REQUIRE(held);
    CHECK(held->fencing_token() == std::optional<std::int64_t>{backend().first_token()});
    o.create_schema_if_missing = false;
    CHECK_NOTHROW(make_provider(o));
}

SQL_SERVER_CASE("{name}: 8 instances starting together on a missing table all come up", "") {
    // CREATE TABLE IF NOT EXISTS is not atomic in PostgreSQL: two sessions creating one table at
    // once can collide on the catalog's unique index. Several rounds: the race is narrow.
    auto o = options_for("together");
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    for (int round = 0; round < 5; ++round) {
        backend().exec("DROP TABLE IF EXISTS " + o.table);
        shedlock::test::check_simultaneous_start(8, [&] { (void)make_provider(o); });
    }
    auto provider = make_provider(o);
    CHECK(provider->try_lock({"together", milliseconds{60'000}}));
    backend().exec("DROP TABLE IF EXISTS " + o.table);
}

SQL_SERVER_CASE("{name}: 8 instances starting together on a missing table all get consecutive fencing tokens", "") {
    // Regression: the schema check probed for the fencing column before the table; a table
    // created by another instance in between read as a plain ShedLock table (no tokens).
    auto o = options_for("together_tokens");
    o.create_schema_if_missing = true;
    o.pool_size = 1;
    shedlock::test::check_tokens_after_simultaneous_start(
        8, 10, [&] { backend().exec("DROP TABLE IF EXISTS " + o.table); },
        [&]() -> std::unique_ptr<lock_provider> { return make_provider(o); }, backend().first_token());
    backend().exec("DROP TABLE IF EXISTS " + o.table);
}

SQL_SERVER_CASE("{name}: Java ShedLock's plain table works, tokens unavailable", "") {
    auto o = options_for("plain");
    backend().exec("DROP TABLE IF EXISTS " + o.table);
    backend().exec(backend().java_plain_table_ddl(o.table));
    auto provider = make_provider(o);
    CHECK_FALSE(provider->supports_fencing());
    auto held = provider->try_lock({"plain", milliseconds{60'000}});
    REQUIRE(held);
    CHECK_FALSE(held->fencing_token());
    CHECK_FALSE(provider->try_lock({"plain", milliseconds{60'000}}));
    held->unlock();
    CHECK(provider->try_lock({"plain", milliseconds{60'000}}));
}

SQL_SERVER_CASE("{name}: a bad table name is rejected before any SQL runs", "") {
    auto o = options_for("unused");
    o.table = "shedlock; drop table x";
    CHECK_THROWS_AS(make_provider(o), configuration_error);
    CHECK_THROWS_WITH(make_provider(o), Contains("\"shedlock; drop table x\" is not a plain identifier"));
}
