// A lock table shared with Java ShedLock in db time (usingDbTime()): the statements Java's
// PostgresSqlServerTimeStatementsSource sends, run through libpq beside our provider.
#include "java_sharing.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <iostream>

using namespace shedlock;
using namespace shedlock::providers;

namespace test_server = shedlock::test::postgres_server;

namespace java_sharing {

/// Java ShedLock's db-time statements for `table` (ShedLock's default column names), with its
/// named parameters as $1 = name, $2 = locked_by, $3 = seconds (lockAtMostFor or lockAtLeastFor).
struct java_statements {
    std::string lock, unlock;
};

java_statements java_statements_for(const std::string& table) {
    const std::string now = "timezone('utc', CURRENT_TIMESTAMP)";
    const std::string at_most = now + " + make_interval(secs => $3::double precision)";
    const std::string at_least = "locked_at + make_interval(secs => $3::double precision)";
    return {"INSERT INTO " + table + "(name, lock_until, locked_at, locked_by) VALUES($1, " + at_most + ", " + now +
                ", $2) ON CONFLICT (name) DO UPDATE SET lock_until = " + at_most + ", locked_at = " + now +
                ", locked_by = $2 WHERE " + table + ".name = $1 AND " + table + ".lock_until <= " + now,
            "UPDATE " + table + " SET lock_until = CASE WHEN " + at_least + " > " + now + " THEN " + at_least + " ELSE " +
                now + " END WHERE name = $1 AND locked_by = $2"};
}

/// A Java ShedLock instance: its own connection, autocommit statements as JdbcTemplate sends them.
class java_instance {
public:
    java_instance(const std::string& table, std::string owner)
        : connection_(test_server::conninfo()), sql_(java_statements_for(table)), owner_(std::move(owner)) {}

    bool lock(const std::string& name, double at_most_seconds = 60) {
        pqxx::nontransaction w(connection_);
        return w.exec_params(sql_.lock, name, owner_, at_most_seconds).affected_rows() == 1;
    }
    void unlock(const std::string& name) {
        pqxx::nontransaction w(connection_);
        w.exec_params(sql_.unlock, name, owner_, 0.0);
    }

private:
    pqxx::connection connection_;
    java_statements sql_;
    std::string owner_;
};

}  // namespace java_sharing

using namespace java_sharing;
using namespace shedlock::test::sql_server;

TEST_CASE("postgres: Java ShedLock in db time re-locks right after its unlock on the table our DDL creates",
          "[postgres][java]") {
    constexpr int cycles = 1000;
    // The negative control: the TIMESTAMP(3) columns our DDL had before. Java's now() is not
    // truncated; the stored value rounds half-up, so lock_until can lie up to 0.5 ms ahead.
    const auto refused = refused_relocks<java_instance>(
        "java_ts3", "CREATE TABLE {t} (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP(3) NOT NULL, "
                    "locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL)", cycles);
    std::cout << "Java re-locks refused right after unlock, " << cycles << " cycles: TIMESTAMP " << refused.ours
              << ", TIMESTAMP(3) " << refused.theirs << " (" << 100.0 * refused.theirs / cycles << " %)\n";
    CHECK(refused.ours == 0);
    CHECK(refused.theirs > 0);  // the trap is real, so the check above means something
}

TEST_CASE("postgres: our provider and Java ShedLock's statements exclude each other on one table", "[postgres][java]") {
    check_exclusion_on_one_table<java_instance>();
}
