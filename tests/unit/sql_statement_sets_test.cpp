// The SQL statement sets: the placeholder check, and every dialect's three sets built in every
// shape a lock table can have (so a statement whose placeholders miss its slots fails here).
#include <shedlock/providers/sql/lock_statement_set.hpp>
#include <shedlock/providers/sql/statement_builder.hpp>

#ifdef SHEDLOCK_TEST_SQLITE
#include <shedlock/providers/sqlite_lock_provider.hpp>
#endif
#ifdef SHEDLOCK_TEST_POSTGRES
#include <shedlock/providers/postgres_lock_provider.hpp>
#endif
#ifdef SHEDLOCK_TEST_MYSQL
#include <shedlock/providers/mysql_lock_provider.hpp>
#endif

#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

using namespace shedlock::providers::sql;

namespace {

constexpr auto dollar = placeholder_style::dollar;
constexpr auto question = placeholder_style::question;

std::vector<std::unique_ptr<sql_dialect>> every_dialect() {
    std::vector<std::unique_ptr<sql_dialect>> out;
#ifdef SHEDLOCK_TEST_SQLITE
    out.push_back(shedlock::providers::make_sqlite_dialect());
#endif
#ifdef SHEDLOCK_TEST_POSTGRES
    out.push_back(shedlock::providers::make_postgres_dialect(true));
    out.push_back(shedlock::providers::make_postgres_dialect(false));
#endif
#ifdef SHEDLOCK_TEST_MYSQL
    out.push_back(shedlock::providers::make_mysql_dialect());
#endif
    return out;
}

/// The acquisition of a known record: one plain UPDATE, bound like the full statement, the
/// timeline epoch only where a token is written (a wide fencing column).
void check_plain_update(const statement& existing, const statement& full, bool epoch) {
    CHECK(existing.sql.rfind("UPDATE ", 0) == 0);
    CHECK(existing.sql.find("INSERT") == std::string::npos);
    CHECK(existing.sql.find("WITH") == std::string::npos);
    CHECK(existing.slots == full.slots);
    CHECK((existing.sql.find("pg_walfile_name") != std::string::npos) == epoch);
}

}  // namespace

TEST_CASE("placeholders that match the bound values pass") {
    CHECK_NOTHROW(check_placeholders("t", "SELECT 1", 0, dollar));
    CHECK_NOTHROW(check_placeholders("t", "UPDATE t SET a = $2 WHERE b = $1 AND c = $1", 2, dollar));
    CHECK_NOTHROW(check_placeholders("t", "SELECT ?1, ?2, ?1", 2, question));
    CHECK_NOTHROW(check_placeholders("t", "SELECT ?, ?, ?", 3, question));
    CHECK_NOTHROW(check_placeholders("t", "SELECT ?1, ?, ?3", 3, question));  // a bare ? is one past the highest
}

TEST_CASE("a placeholder past the bound values is a logic error") {
    CHECK_THROWS_AS(check_placeholders("t", "SELECT $1, $3", 2, dollar), std::logic_error);
    CHECK_THROWS_WITH(check_placeholders("unlock", "SELECT $1, $2, $3", 2, dollar),
                      Catch::Contains("unlock") && Catch::Contains("$3") && Catch::Contains("binds 2"));
    CHECK_THROWS_AS(check_placeholders("t", "SELECT ?, ?, ?", 2, question), std::logic_error);
}

TEST_CASE("a gap or an unused bound value is a logic error") {
    CHECK_THROWS_WITH(check_placeholders("t", "SELECT $1, $3", 3, dollar), Catch::Contains("never uses $2"));
    CHECK_THROWS_WITH(check_placeholders("t", "SELECT ?1, ?2", 3, question), Catch::Contains("never uses ?3"));
    CHECK_THROWS_AS(check_placeholders("t", "SELECT 1", 1, dollar), std::logic_error);
}

TEST_CASE("quoted text and identifiers hold no placeholders") {
    CHECK_NOTHROW(check_placeholders("t", "SELECT '$2 it''s ?', \"a$1\", `?` FROM t WHERE a = $1", 1, dollar));
    CHECK_NOTHROW(check_placeholders("t", "SELECT printf('%+d ? seconds', ?1)", 1, question));
    CHECK_THROWS_AS(check_placeholders("t", "SELECT '$1'", 1, dollar), std::logic_error);
}

TEST_CASE("every dialect builds its lock statement set in every table shape") {
    const auto dialects = every_dialect();
    REQUIRE_FALSE(dialects.empty());
    lock_columns mapped;
    mapped.name = "job";
    mapped.lock_until = "held_until";
    const table_name plain("shedlock");
    const table_name qualified("locks.shedlock");
    for (const auto& dialect : dialects) {
        for (const lock_table& table : {lock_table(plain), lock_table::with_case(qualified, mapped, true),
                                        lock_table::with_case(plain, mapped, false)}) {
            for (const bool fencing : {true, false}) {
                for (const bool db_time : {true, false}) {
                    for (const bool wide : {true, false}) {
                        INFO(dialect->name() << " fencing " << fencing << " db_time " << db_time << " wide " << wide);
                        const lock_statement_set set(*dialect, table, statement_options{fencing, db_time, false, wide});
                        CHECK(set.acquire.slots.size() >= 3);
                        CHECK(set.unlock.slots.size() >= 3);
                        if (set.acquire_existing) check_plain_update(*set.acquire_existing, set.acquire, fencing && wide);
                    }
                }
            }
        }
    }
}

TEST_CASE("every dialect offers its run-record and claim sets") {
    for (const auto& dialect : every_dialect()) {
        INFO(dialect->name());
        const auto runs = dialect->run_set(table_name("shedlock_runs"));
        REQUIRE(runs.has_value());
        CHECK_FALSE(runs->schema().empty());
        const auto claims = dialect->claim_set(table_name("app.shedlock_claims"));
        REQUIRE(claims.has_value());
        CHECK_FALSE(claims->schema().empty());
    }
}
