// Retry advice on SQLite: a write lock that stayed busy past busy_timeout applied nothing, so
// the failure is safe to retry.
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <SQLiteCpp/Database.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

TEST_CASE("sqlite retry advice: a statement that stayed busy is safe to retry", "[sqlite][retry]") {
    shedlock::providers::sqlite_options o;
    o.path = shedlock::test::scratch_dir() + "/retry-advice-busy.db";
    o.create_schema_if_missing = true;
    o.busy_timeout = std::chrono::milliseconds{100};
    auto provider = shedlock::providers::make_sqlite_lock_provider(o);
    SQLite::Database writer(o.path, SQLite::OPEN_READWRITE);
    writer.exec("BEGIN IMMEDIATE");  // holds the write lock
    try {
        (void)provider->try_lock(shedlock::lock_configuration("busy-lock", std::chrono::minutes(1)));
        FAIL("the write lock was taken twice");
    } catch (const shedlock::storage_error& e) {
        INFO(e.what());
        CHECK(e.category() == shedlock::storage_category::busy);
        CHECK(e.advice() == shedlock::retry_advice::safe);
    }
    writer.exec("ROLLBACK");
    CHECK(provider->try_lock(shedlock::lock_configuration("busy-lock", std::chrono::minutes(1))));  // nothing was applied: the lock is free
}
