// PostgreSQL and the names of a lock table: ShedLock's DDL under other names (columns=), and
// Oracle-style upper-case names (upper_case=true), which only exact quoting finds.
#include "postgres_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace test_server = shedlock::test::postgres_server;

namespace name_mapping {

std::string pid_suffix() { return std::to_string(::getpid()); }

std::unique_ptr<sql::sql_lock_provider> open_with(const std::string& query, bool create = false) {
    auto o = postgres_options::from_uri(parse_provider_uri(test_server::uri() + "?" + query));
    o.create_schema_if_missing = create;
    return make_postgres_lock_provider(o);
}

}  // namespace name_mapping

using namespace name_mapping;

TEST_CASE("postgres: upper_case=true finds a table created with quoted upper-case names, without it a clear error",
          "[postgres][mapping]") {
    const std::string table = "SHEDLOCK_UPPER_" + pid_suffix();
    test_server::exec("DROP TABLE IF EXISTS \"" + table + "\"");
    test_server::exec("CREATE TABLE \"" + table + "\" (\"NAME\" VARCHAR(64) NOT NULL, \"LOCK_UNTIL\" TIMESTAMP NOT NULL, "
                      "\"LOCKED_AT\" TIMESTAMP NOT NULL, \"LOCKED_BY\" VARCHAR(255) NOT NULL, PRIMARY KEY (\"NAME\"))");
    try {
        (void)open_with("table=" + table);  // folded to lower case: another (missing) table
        FAIL("a lower-case reading of an upper-case table opened");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::missing_schema);
        CHECK_THAT(e.what(), Contains("does not exist") && Contains("upper_case=true"));
    }
    auto provider = open_with("table=" + table + "&upper_case=true");
    CHECK_FALSE(provider->supports_fencing());  // ShedLock's DDL has no fencing column
    CHECK(inspect(*provider).record_table() == table);
    auto held = provider->try_lock({"upper", std::chrono::minutes{1}});
    REQUIRE(held);
    CHECK_FALSE(provider->try_lock({"upper", std::chrono::minutes{1}}));
    REQUIRE(inspect(*provider).list_locks().size() == 1);
    held->unlock();
    CHECK(provider->try_lock({"upper", std::chrono::minutes{1}}));
    test_server::exec("DROP TABLE \"" + table + "\"");
}

TEST_CASE("postgres: mapped names mean what they mean unquoted (folded), upper_case creates them exactly",
          "[postgres][mapping]") {
    const std::string folded = "Ops_Locks_" + pid_suffix();
    test_server::exec("DROP TABLE IF EXISTS " + folded);
    test_server::exec("CREATE TABLE " + folded + " (Job VARCHAR(64) NOT NULL PRIMARY KEY, Until_Ts TIMESTAMP NOT NULL, "
                      "At_Ts TIMESTAMP NOT NULL, By_Host VARCHAR(255) NOT NULL, Fence BIGINT NOT NULL DEFAULT 0)");
    auto mapped = open_with("table=" + folded +
                            "&columns=name:JOB,lock_until:until_ts,locked_at:At_Ts,locked_by:by_host,fencing_token:fence");
    CHECK(mapped->supports_fencing());
    auto held = mapped->try_lock({"mapped", std::chrono::minutes{1}});
    REQUIRE(held);
    CHECK(held->fencing_token() == test_server::first_token());
    held->unlock();
    test_server::exec("DROP TABLE " + folded);

    const std::string exact = "CREATED_UPPER_" + pid_suffix();
    test_server::exec("DROP TABLE IF EXISTS \"" + exact + "\"");
    auto created = open_with("table=" + exact + "&columns=name:job&upper_case=true", true);
    CHECK_THAT(created->schema_sql(), Contains("\"" + exact + "\"") && Contains("\"JOB\" VARCHAR(64)") &&
                                          Contains("\"FENCING_TOKEN\" BIGINT"));
    CHECK(created->try_lock({"created", std::chrono::minutes{1}}));  // released at once: the handle is dropped
    test_server::exec("SELECT \"JOB\", \"LOCK_UNTIL\", \"FENCING_TOKEN\" FROM \"" + exact + "\"");  // exactly these names
    test_server::exec("DROP TABLE \"" + exact + "\"");
}

TEST_CASE("postgres: a lock table whose times are timestamptz, or a mapped system column, is refused at start-up",
          "[postgres][mapping]") {
    const std::string table = "shedlock_tz_" + pid_suffix();
    test_server::exec("DROP TABLE IF EXISTS " + table);
    test_server::exec("CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMPTZ NOT NULL, "
                      "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "column \"lock_until\" (lock_until) is timestamp with time zone, not a timestamp column"},
        {"&columns=lock_until:locked_at,locked_at:tableoid", "column \"tableoid\" (locked_at) does not exist"},
        {"&columns=lock_until:locked_at,locked_at:cmax", "column \"cmax\" (locked_at) does not exist"},
        {"&columns=name:tableoid", "column \"tableoid\" (name) does not exist"}};
    for (const auto& [columns, message] : cases) {
        try {
            (void)open_with("table=" + table + columns);
            FAIL("opened with " << columns);
        } catch (const storage_error& e) {
            INFO(columns);
            CHECK(e.category() == storage_category::missing_schema);
            CHECK_THAT(e.what(), Contains(message));
        }
    }
    test_server::exec("DROP TABLE " + table);
}

TEST_CASE("postgres: an INTEGER fencing column counts from 1 (no timeline epoch, which needs 64 bits)", "[postgres][mapping]") {
    // A narrower column cannot hold the timeline in bits 40-63: its tokens stay a plain counter
    // (they may repeat across a failover; docs/lock-semantics.md) instead of overflowing.
    const std::string narrow = "narrow_fence_" + pid_suffix();
    test_server::exec("DROP TABLE IF EXISTS " + narrow);
    test_server::exec("CREATE TABLE " + narrow + " (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, "
                      "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, fencing_token INTEGER NOT NULL DEFAULT 0)");
    auto provider = open_with("table=" + narrow);
    REQUIRE(provider->supports_fencing());
    for (std::int64_t expected = 1; expected <= 2; ++expected) {
        auto held = provider->try_lock({"narrow", std::chrono::minutes{1}});
        REQUIRE(held);
        CHECK(held->fencing_token() == expected);
        held->unlock();
    }
    test_server::exec("DROP TABLE " + narrow);
}
